"""What an operator sees on a terminal while dispatch runs.

JSON events and human text never share a screen: when stdout is a terminal
(and --json was not given), stdout carries a human view and the JSON goes
only to --events; otherwise stdout carries JSON and the human view goes to
stderr, if stderr is a terminal. The progress line counts attempts (not
rungs) and names the rung; waits are announced; one closing line says how it
ended."""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from router.planner import Rung


def describe(fields: dict[str, Any]) -> str:
    """`gcp a2-ultragpu-4g SPOT us-central1-c`, from an event's or machine's fields."""
    parts = [fields.get("backend", "?")]
    for key in ("machine_type", "provisioning", "zone", "lane", "gpu_type", "instance",
                "job_id", "pod_id"):
        value = fields.get(key)
        if value and key not in ("instance",) and (key != "job_id" or not fields.get("lane")):
            parts.append(str(value))
    return " ".join(parts)


class Console:
    def __init__(self, human_stdout: bool, stream: IO[str] | None = None) -> None:
        self.human = human_stdout
        if stream is not None:
            self.out: IO[str] | None = stream
        elif human_stdout:
            self.out = sys.stdout
        else:
            self.out = sys.stderr if sys.stderr.isatty() else None
        # JSON on a terminal (--json) and a progress line on the same screen
        # would interleave: then only whole lines (waits, the closing line).
        self.progress = human_stdout or not sys.stdout.isatty()
        self.start = time.monotonic()
        self.attempts = 0
        self.status = ""  # the progress line on screen now
        self.current = ""  # the rung it names

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    # ---- lines ---------------------------------------------------------------------------

    def _write(self, text: str) -> None:
        if self.out is None:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):
            self.out = None  # the terminal went away; the walk goes on

    def _clear(self) -> None:
        if self.status:
            self._write("\r\x1b[K")

    def line(self, text: str) -> None:
        """A lasting line; the progress line is redrawn under it."""
        self._clear()
        self._write(text + "\n")
        if self.status:
            self._write(self.status)

    def announce(self, text: str) -> None:
        self.line(f"[{self.elapsed:6.1f}s] {text}")

    def rung(self, index: int, total: int, rung: Rung) -> None:
        target = rung.target + (f" {rung.provisioning}" if rung.provisioning else "")
        self.current = f"rung {index}/{total}: {rung.backend} {target} ×{rung.width}"
        self._redraw()

    def _redraw(self) -> None:
        if self.out is None or not self.current or not self.progress:
            return
        self.status = (f"[{self.elapsed:6.1f}s] {self.current} · {self.attempts} attempts "
                       "so far")
        self._clear()
        self._write(self.status)

    def close(self, text: str) -> None:
        self._clear()
        self.status = self.current = ""
        self._write(text + "\n")

    # ---- events --------------------------------------------------------------------------

    def on_event(self, record: dict[str, Any]) -> None:
        event = record.get("event")
        if event == "epm:backend-attempt":
            self.attempts += 1
            self._redraw()
        elif event == "epm:backend-released" and self.human:
            self.announce(f"released {describe(record)} {record.get('instance', '')}".rstrip())
        elif event == "epm:backend-check" and not record.get("usable"):
            self.announce(f"{record.get('backend')}: cannot be used: {record.get('detail')}")

    # ---- the closing line -----------------------------------------------------------------

    def selected(self, fields: dict[str, Any]) -> str:
        width, requested = fields.get("width"), fields.get("requested_width")
        where = f"at width {width}" + (f" of {requested}" if requested != width else "")
        again = " (adopted from an earlier run)" if fields.get("rerun") else ""
        return (f"selected {describe(fields)} {where}{again} after {self.attempts} "
                f"attempts in {self.elapsed:.1f} s")

    def exhausted(self) -> str:
        return f"exhausted after {self.attempts} attempts in {self.elapsed:.1f} s"
