"""The skill graph: cycles (with their path), a dependency-first order, and each skill's distance
from the notebook. Pure functions over ``{skill: (skills it requires, ...)}``; names are sorted
wherever there is a choice, so the answers never depend on the order skills were loaded in."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence

Edges = Mapping[str, Sequence[str]]


def find_cycles(edges: Edges) -> list[tuple[str, ...]]:
    """One cycle per knot of mutually requiring skills, as a path that returns to its start:
    ``("a", "a")`` (a skill requiring itself), ``("a", "b", "a")``, ``("a", "b", "c", "a")``.

    Each path is the shortest way back to the knot's alphabetically first skill.
    """
    cycles = []
    for component in _components(edges):
        start = min(component)
        if len(component) == 1 and start not in edges.get(start, ()):
            continue
        cycles.append(_shortest_way_back(start, component, edges))
    return sorted(cycles)


def order(edges: Edges) -> list[str]:
    """Every skill after the skills it requires (ties alphabetical); skills in a cycle come last."""
    nodes = _nodes(edges)
    waiting = {n: {m for m in edges.get(n, ()) if m in nodes and m != n} for n in nodes}
    done: list[str] = []
    ready = sorted(n for n, deps in waiting.items() if not deps)
    while ready:
        node = ready.pop(0)
        done.append(node)
        for other in sorted(nodes):
            if node in waiting[other]:
                waiting[other].discard(node)
                if not waiting[other] and other not in done and other not in ready:
                    ready.append(other)
        ready.sort()
    return done + sorted(n for n in nodes if n not in done)


def depths(edges: Edges, roots: Iterable[str]) -> dict[str, int]:
    """How many ``requires`` steps each skill is from the notebook (0: the notebook names it)."""
    found: dict[str, int] = {}
    frontier = deque((root, 0) for root in sorted(set(roots)))
    while frontier:
        node, depth = frontier.popleft()
        if node in found:
            continue
        found[node] = depth
        frontier.extend((m, depth + 1) for m in sorted(edges.get(node, ())) if m not in found)
    return found


def _nodes(edges: Edges) -> set[str]:
    return set(edges) | {m for targets in edges.values() for m in targets}


def _components(edges: Edges) -> list[set[str]]:
    """Strongly connected components (Tarjan's algorithm, iterative: deep chains do not recurse)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for root in sorted(_nodes(edges)):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            advanced = False
            for target in targets:
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)
    return found


def _shortest_way_back(start: str, component: set[str], edges: Edges) -> tuple[str, ...]:
    previous: dict[str, str] = {}
    frontier = deque([start])
    seen = {start}
    while frontier:
        node = frontier.popleft()
        for target in sorted(edges.get(node, ())):
            if target not in component:
                continue
            if target == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return (*reversed(path), start)
            if target not in seen:
                seen.add(target)
                previous[target] = node
                frontier.append(target)
    raise AssertionError(f"{start} is in a cycle with no way back")  # pragma: no cover
