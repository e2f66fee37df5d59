"""The call deadline: silence ends it, activity pushes it back, a person's time pauses it."""

from __future__ import annotations

import asyncio

import pytest

from mcpnb.client.timeouts import Deadline, DeadlinePassed, within


def test_silence_past_the_idle_time_ends_the_work():
    async def scenario() -> bool:
        cancelled = False

        async def silent() -> None:
            nonlocal cancelled
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled = True
                raise

        with pytest.raises(DeadlinePassed):
            await within(Deadline(idle=0.05, total=30), silent())
        return cancelled

    assert asyncio.run(scenario())  # the work itself was cancelled (it can tell its peer)


def test_activity_pushes_the_deadline_back_but_the_cap_holds():
    async def busy(deadline: Deadline, beats: int) -> str:
        for _ in range(beats):
            await asyncio.sleep(0.02)
            deadline.touch()
        return "done"

    async def scenario() -> None:
        alive = Deadline(idle=0.2, total=30)
        assert await within(alive, busy(alive, 20)) == "done"  # far longer than idle, never silent
        capped = Deadline(idle=0.2, total=0.1)
        with pytest.raises(DeadlinePassed):
            await within(capped, busy(capped, 200))
        assert capped.hit_total and "max_total_timeout" in capped.message("x()", "s")

    asyncio.run(scenario())


def test_a_paused_deadline_does_not_run():
    async def asks_a_person(deadline: Deadline) -> str:
        deadline.pause()
        await asyncio.sleep(0.3)  # the person takes their time
        deadline.resume()
        return "answered"

    async def scenario() -> str:
        deadline = Deadline(idle=0.05, total=0.1)
        return await within(deadline, asks_a_person(deadline))

    assert asyncio.run(scenario()) == "answered"


def test_other_timeouts_are_not_mistaken_for_the_deadline():
    async def fails() -> None:
        raise TimeoutError("the work's own timeout")

    async def scenario() -> None:
        await within(Deadline(idle=30, total=30), fails())

    with pytest.raises(TimeoutError, match="the work's own timeout") as info:
        asyncio.run(scenario())
    assert not isinstance(info.value, DeadlinePassed)
