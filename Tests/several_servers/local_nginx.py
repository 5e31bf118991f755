#!/usr/bin/env python3
"""deploy/nginx.conf made to run on this machine, on loopback, with its files in one folder.

Only the ports, the paths and (when not root) the user change; every other line of the example is used
as written, so a test or benchmark through it checks the example itself. Used by
Tests/several_servers/conftest.py and Benchmarks/several/run:

    python3 Tests/several_servers/local_nginx.py deploy/nginx.conf --listen PORT --servers PORT,PORT \
        --folder DIR [--error-log PATH] [--access-log PATH] > DIR/nginx.conf
    /usr/sbin/nginx -p DIR -c DIR/nginx.conf -e DIR/error.log -g 'daemon off;'
"""

from __future__ import annotations

import argparse
import os
import pwd
import re
import sys
from pathlib import Path

NGINX = "/usr/sbin/nginx"
EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf"


def _replace(text: str, pattern: str, replacement, what: str, count: int | None = 1) -> str:
    """`re.subn` over lines that must match `count` times (any number ≥ 1 when None): the example changed otherwise."""
    changed, found = re.subn(pattern, replacement, text, flags=re.MULTILINE | re.DOTALL)
    if (count is None and found == 0) or (count is not None and found != count):
        raise ValueError(f"deploy/nginx.conf: expected {count or 'some'} {what}, found {found}; update local_nginx.py with it")
    return changed


def local_config(example: str, listen: int, servers: list[int], folder: Path,
                 error_log: Path | None = None, access_log: Path | None = None) -> str:
    """The example listening on 127.0.0.1:`listen`, forwarding to 127.0.0.1:`servers`, writing under `folder`."""
    text = example
    text = _replace(text, r"^pid\s+\S+;", f"pid {folder}/nginx.pid;", "pid line")
    text = _replace(text, r"^(error_log\s+)\S+", lambda m: m.group(1) + str(error_log or folder / "error.log"), "error_log line")
    text = _replace(text, r"^(\s*access_log\s+)\S+", lambda m: m.group(1) + str(access_log or folder / "access.log"), "access_log line")
    text = _replace(text, r"^(\s*)listen\s+80;", lambda m: f"{m.group(1)}listen 127.0.0.1:{listen};", "plain-HTTP listen line")
    # Each upstream block's servers (lines not commented out) become ours, where its first one was.
    line = re.compile(r"^([ \t]*)server\s+127\.0\.0\.1:\d+;\n", flags=re.MULTILINE)

    def upstream(block: re.Match) -> str:
        body = block.group(2)
        first = line.search(body)
        if not first:
            raise ValueError(f"deploy/nginx.conf: no `server 127.0.0.1:PORT;` line in {block.group(1).strip()}")
        ours = "".join(f"{first.group(1)}server 127.0.0.1:{port};\n" for port in servers)
        return block.group(1) + body[:first.start()] + ours + line.sub("", body[first.start():])

    text = _replace(text, r"^([ \t]*upstream\s+\S+\s*\{\n)(.*?^[ \t]*\})", upstream, "upstream blocks", count=None)
    # nginx's temporary files go to the folder too (Debian's defaults are under /var/lib/nginx).
    temp = "".join(f"    {name}_temp_path {folder}/{name}_temp;\n" for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = _replace(text, r"^http \{\n", lambda m: m.group(0) + temp, "http block")
    # `user` takes effect only for root; anyone else runs nginx's workers as themselves.
    if os.geteuid() != 0:
        text = _replace(text, r"^user\s+\S+;\n", "", "user line")
    else:
        user = re.search(r"^user\s+(\S+);", text, flags=re.MULTILINE)
        if user:
            try:
                pwd.getpwnam(user.group(1))
            except KeyError:
                text = _replace(text, r"^user\s+\S+;\n", "", "user line")
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("example", type=Path, nargs="?", default=EXAMPLE)
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--servers", required=True, help="the CarePortal servers' ports, separated by commas")
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--error-log", type=Path)
    parser.add_argument("--access-log", type=Path)
    arguments = parser.parse_args()
    servers = [int(port) for port in arguments.servers.split(",") if port]
    sys.stdout.write(local_config(arguments.example.read_text(), arguments.listen, servers, arguments.folder.resolve(),
                                  arguments.error_log, arguments.access_log))
    return 0


if __name__ == "__main__":
    sys.exit(main())
