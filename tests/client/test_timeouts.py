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
    """On a clock of the test's own: with real sleeps of 20 ms against a 0.2 s idle time, a loaded
    machine (the full suite on 2 cores) once slept past it and the deadline passed."""

    class Clock:
        now = 0.0

        def __call__(self) -> float:
            return self.now

    async def busy(deadline: Deadline, clock: Clock, beats: int) -> str:
        for _ in range(beats):
            clock.now += 0.15  # less than the idle time between two signs of life
            deadline.touch()
            await asyncio.sleep(0)  # the loop runs: the deadline's timer may check it
        return "done"

    async def scenario() -> None:
        clock = Clock()
        alive = Deadline(idle=0.2, total=30, clock=clock)
        assert await within(alive, busy(alive, clock, 20)) == "done"  # 3 s, far past idle, never silent
        capped = Deadline(idle=0.2, total=1.0, clock=clock)
        with pytest.raises(DeadlinePassed):
            await within(capped, busy(capped, clock, 200))
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


def test_many_calls_share_one_timer_and_each_ends_on_its_own_deadline():
    """Calls of different lengths at once: only the silent ones end, each near its own deadline."""

    async def scenario() -> list[str]:
        async def work(seconds: float) -> str:
            await asyncio.sleep(seconds)
            return f"done {seconds}"

        async def one(idle: float, seconds: float) -> str:
            started = asyncio.get_running_loop().time()
            try:
                return await within(Deadline(idle=idle, total=30), work(seconds))
            except DeadlinePassed:
                waited = asyncio.get_running_loop().time() - started
                return f"timed out ({'after' if waited >= idle else 'BEFORE'} its idle time)"

        return list(
            await asyncio.gather(one(0.3, 0.01), one(0.05, 30), one(30, 0.2), one(0.1, 30), one(30, 0.01))
        )

    assert asyncio.run(scenario()) == [
        "done 0.01",
        "timed out (after its idle time)",
        "done 0.2",
        "timed out (after its idle time)",
        "done 0.01",
    ]


def test_a_deadline_that_resumes_after_the_others_ended_is_still_enforced():
    """A paused call, then every other call ends; once it resumes its deadline still runs out."""

    async def scenario() -> None:
        paused = Deadline(idle=0.05, total=30)

        async def asks_then_goes_silent() -> None:
            paused.pause()
            await asyncio.sleep(0.2)  # meanwhile the short call below ends and no timer is left
            paused.resume()
            await asyncio.sleep(30)

        async def short() -> None:
            await within(Deadline(idle=30, total=30), asyncio.sleep(0.01))

        with pytest.raises(DeadlinePassed):
            await asyncio.gather(within(paused, asks_then_goes_silent()), short())

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_cancel_from_elsewhere_is_not_mistaken_for_the_deadline():
    async def scenario() -> None:
        task = asyncio.ensure_future(within(Deadline(idle=30, total=30), asyncio.sleep(30)))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())


def test_the_task_goes_on_normally_after_a_deadline_passed():
    """The deadline's cancel is taken back: the next await in the same task is not cancelled."""

    async def scenario() -> str:
        with pytest.raises(DeadlinePassed):
            await within(Deadline(idle=0.05, total=30), asyncio.sleep(30))
        await asyncio.sleep(0.01)
        return "still running"

    assert asyncio.run(scenario()) == "still running"
