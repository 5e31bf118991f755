"""Runs a test command and stops it if it stalls.

    python3 script/lib/watch_tests.py MINUTES [--unfinished FILE] -- COMMAND [ARGUMENTS...]

Passes the command's output through as it comes. When no line has come for MINUTES minutes, it
prints the tests that started and have not finished (from swift-testing's "◇ Test … started."
and "✔/✘ Test … passed/failed" lines), each thread's stack of every process under the command
(with gdb, when the machine has it), writes those tests' names to FILE, one a line, then stops the
command and exits with 124. Otherwise it exits with the command's own status.

No test takes more than a few minutes, so a run with nothing to say for many more is waiting
for something that will not come: it is stopped with what is needed to find out what,
rather than left to run into CI's time limit.
"""

import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time

STARTED = re.compile(r"◇ Test (\S+?\(.*?\)) started\.")
# A parameterized test ends "… with 2 test cases passed"; "✘ Test … recorded an issue" is not its end.
FINISHED = re.compile(r"[✔✘] Test (\S+?\(.*?\))(?: with \d+ test cases?)? (?:passed|failed)")


def descendants(root):
    """The process ids under root (root included), read from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(children.get(pid, []))
    return found


def report_stall(process, running, minutes, unfinished):
    print(f"\n== Nothing printed for {minutes:g} minutes: stopping the run.", flush=True)
    print(f"Started and not finished ({len(running)}):", flush=True)
    for name in sorted(running):
        print(f"  {name}", flush=True)
    if unfinished:
        with open(unfinished, "w") as names:
            names.writelines(f"{name}\n" for name in sorted(running))
    gdb = shutil.which("gdb")
    for pid in descendants(process.pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        print(f"\n== Process {pid}: {command[:200]}", flush=True)
        if gdb:
            subprocess.run([gdb, "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt 30"],
                           stdin=subprocess.DEVNULL, stderr=subprocess.STDOUT, timeout=120, check=False)
    # swift test runs the test binary in a process group of its own: each process is stopped by
    # itself, or the binary would stay behind, idle, after the run.
    for pid in descendants(process.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def main():
    arguments = sys.argv[1:]
    unfinished = None
    if len(arguments) > 2 and arguments[1] == "--unfinished":
        unfinished = arguments[2]
        del arguments[1:3]
    if len(arguments) < 3 or arguments[1] != "--":
        sys.exit("usage: watch_tests.py MINUTES [--unfinished FILE] -- COMMAND [ARGUMENTS...]")
    minutes = float(arguments[0])
    process = subprocess.Popen(arguments[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    running, pending, last_line = set(), b"", time.monotonic()
    try:
        while True:
            if selector.select(timeout=5):
                chunk = os.read(process.stdout.fileno(), 65536)
                if not chunk:
                    break
                sys.stdout.buffer.write(chunk)
                sys.stdout.buffer.flush()
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    text = line.decode(errors="replace")
                    if started := STARTED.search(text):
                        running.add(started.group(1))
                    elif finished := FINISHED.search(text):
                        running.discard(finished.group(1))
                if lines:
                    last_line = time.monotonic()
            elif time.monotonic() - last_line > minutes * 60:
                report_stall(process, running, minutes, unfinished)
                sys.exit(124)
    except KeyboardInterrupt:
        os.killpg(process.pid, signal.SIGTERM)
        raise
    sys.exit(process.wait())


if __name__ == "__main__":
    main()
