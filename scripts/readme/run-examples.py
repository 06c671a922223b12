#!/usr/bin/env python3
"""Runs every example of README.md as a reader would copy it, and fails when one fails.

    python3 scripts/readme/run-examples.py --binary .build/debug/payment-sandbox [--readme README.md]
                                           [--only LINE] [--verbose] [--no-swift]

Fenced blocks:
- ```sh / ```bash / ```shell: run with `bash -euo pipefail`, in the repository, each block in a fresh bash
  against a freshly started sandbox on 127.0.0.1:8080 (the binary given, with the bundled scenarios, as
  `swift run payment-sandbox` serves it). A failing command fails the block.
- ```swift: all Swift blocks become the test target of one temporary SwiftPM package under
  .build/readme-swift/ that depends on this repository by path; `swift test` builds and runs them.
  Each block must therefore be a whole file (imports included).
- Any other language (text, json, xml, ...) is not run. A fence without a language is an error: say whether
  it is something to run (sh, swift) or a sample (text, json).

A marker on the line right before the fence changes that:
- `<!-- readme-example: skip (reason) -->`: not run; the reason is printed (and required).
- `<!-- readme-example: continues -->`: a shell block run in the same bash, against the same sandbox, right
  after the shell block before it (for a README that says "in the same shell as above").
- `<!-- readme-example: servers -->`: every command line of the block starts a server (`swift run
  payment-sandbox --port 0`, ...): no sandbox is started for it; each line runs alone until its output says
  "listening on" (it fails if the command exits first), then gets SIGTERM and must exit 0.

curl exits 0 whatever the status, so a block also fails when the sandbox answered one of its requests with
a 4xx or 5xx status that the block does not mention (an example that shows an error says its status).

`jq` and `uuidgen` are not on a fresh Debian machine: the blocks see commands of those names that fail.
Prints per block the section, line and pass / fail / skip (reason), then "N passed, N failed, N skipped".
Exits 1 when a block fails, 2 when README.md or the set-up is wrong. Port 8080 must be free.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HOST, PORT = "127.0.0.1", 8080
SHELL_LANGUAGES = {"sh", "bash", "shell"}
SWIFT_LANGUAGES = {"swift"}
# Tools a fresh Debian machine does not have: the README must not need them.
ABSENT_TOOLS = {"jq": "jq", "uuidgen": "uuidgen (util-linux's uuid-runtime)"}
MARKER = re.compile(r"^\s*<!--\s*readme-example:\s*(?P<kind>[a-z-]+)\s*(?:\((?P<reason>.*)\))?\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
HEADING = re.compile(r"^(#{1,6})\s+(?P<title>.+?)\s*#*\s*$")


class ReadmeError(Exception):
    pass


@dataclass
class Block:
    line: int  # line number of the opening fence (1-based)
    section: str
    language: str
    code: str
    skip: str | None = None  # the reason
    continues: bool = False
    servers: bool = False
    outcome: str = ""  # pass, fail, skip
    detail: str = ""


@dataclass
class Chain:
    """Shell blocks that run in one bash against one sandbox: a block and those that continue it."""
    blocks: list[Block] = field(default_factory=list)


def parse(readme: Path) -> list[Block]:
    lines = readme.read_text(encoding="utf-8").split("\n")
    blocks: list[Block] = []
    section = "(top)"
    pending: tuple[int, re.Match[str]] | None = None  # a marker waiting for its fence
    index = 0
    while index < len(lines):
        text = lines[index]
        number = index + 1
        marker = MARKER.match(text)
        if marker:
            if pending:
                raise ReadmeError(f"line {pending[0]}: readme-example marker not followed by a fence")
            pending = (number, marker)
            index += 1
            continue
        opening = FENCE.match(text)
        if not opening:
            if pending:
                raise ReadmeError(f"line {pending[0]}: readme-example marker must be on the line right before a fence")
            heading = HEADING.match(text)
            if heading:
                section = heading.group("title")
            index += 1
            continue
        indent, fence = len(opening.group("indent")), opening.group("fence")
        info = opening.group("info").strip()
        language = info.split()[0].lower() if info else ""
        body: list[str] = []
        index += 1
        while index < len(lines):
            closing = lines[index]
            stripped = closing.strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                break
            # Content of an indented fence (in a list item) loses up to the fence's indentation.
            body.append(re.sub(r"^ {0,%d}" % indent, "", closing) if indent else closing)
            index += 1
        else:
            raise ReadmeError(f"line {number}: fence never closed")
        index += 1
        if not language:
            raise ReadmeError(f"line {number}: fence without a language: use sh or swift (run) or text, json, ... (not run)")
        block = Block(line=number, section=section, language=language, code="\n".join(body) + "\n")
        if pending:
            kind, reason = pending[1].group("kind"), (pending[1].group("reason") or "").strip()
            if kind == "skip":
                if not reason:
                    raise ReadmeError(f"line {pending[0]}: a skip needs its reason: <!-- readme-example: skip (why) -->")
                block.skip = reason
            elif kind == "continues":
                if language not in SHELL_LANGUAGES:
                    raise ReadmeError(f"line {pending[0]}: only shell blocks can continue another")
                block.continues = True
            elif kind == "servers":
                if language not in SHELL_LANGUAGES:
                    raise ReadmeError(f"line {pending[0]}: only shell blocks can start servers")
                block.servers = True
            else:
                raise ReadmeError(f"line {pending[0]}: unknown readme-example marker {kind!r} (skip, continues, servers)")
            pending = None
        blocks.append(block)
    if pending:
        raise ReadmeError(f"line {pending[0]}: readme-example marker not followed by a fence")
    return blocks


def report(block: Block) -> None:
    text = {"pass": "pass", "fail": "FAIL", "skip": f"skip ({block.skip})"}[block.outcome]
    print(f"[{block.section}] line {block.line} ({block.language}): {text}" + (f": {block.detail}" if block.detail and block.outcome == "fail" else ""), flush=True)


def tail(text: str, count: int = 60) -> str:
    lines = text.rstrip("\n").split("\n")
    return "\n".join(("    " + line) for line in lines[-count:])


# Shell blocks ------------------------------------------------------------------------------------------------

class Sandbox:
    """The binary on 127.0.0.1:8080 with the bundled scenarios, the repository as its working directory."""

    def __init__(self, binary: Path, log_dir: Path):
        self.binary = binary
        self.log_path = log_dir / "sandbox.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PAYMENT_SANDBOX_")}
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen([str(self.binary), "--host", HOST, "--port", str(PORT)], cwd=REPO, env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if "listening on" in self.log_path.read_text(errors="replace"):
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        raise ReadmeError(f"the sandbox did not start on {HOST}:{PORT}:\n{tail(self.log_path.read_text(errors='replace'))}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        self.log.close()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")


def absent_tool_shims(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, description in ABSENT_TOOLS.items():
        shim = directory / name
        shim.write_text(f"#!/bin/sh\necho 'readme-example: {description} is not on a fresh Debian machine: "
                        f"the README must not use it' >&2\nexit 127\n")
        shim.chmod(0o755)


REQUEST_LOG = re.compile(r"^\S+ \w+ \S+ (?P<method>[A-Z]+) (?P<path>\S+) (?P<status>\d{3}) [\d.]+ms$")


def unexplained_errors(log: str, code: str) -> list[str]:
    """4xx and 5xx answers in the sandbox's request log whose status the block's text does not mention."""
    found = []
    for line in log.split("\n"):
        request = REQUEST_LOG.match(line)
        if request and int(request["status"]) >= 400 and not re.search(rf"\b{request['status']}\b", code):
            found.append(f"{request['status']} to {request['method']} {request['path']}")
    return found


def run_servers(block: Block, work: Path, timeout: float, verbose: bool) -> None:
    """Each command line of the block starts a server: it must say "listening on", then stop on SIGTERM."""
    env = dict(os.environ)
    env["PATH"] = f"{work / 'absent-tools'}{os.pathsep}{env.get('PATH', '')}"
    for key in [k for k in env if k.startswith("PAYMENT_SANDBOX_")]:
        del env[key]
    commands = [line for line in block.code.split("\n") if line.strip() and not line.lstrip().startswith("#")]
    problems, outputs = [], []
    for command in commands:
        log_path = work / "server.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(["bash", "--noprofile", "--norc", "-euo", "pipefail", "-c", command], cwd=REPO,
                                       env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True)
            deadline = time.monotonic() + timeout
            started = False
            while time.monotonic() < deadline and process.poll() is None:
                if "listening on" in log_path.read_text(errors="replace"):
                    started = True
                    break
                time.sleep(0.05)
            if started:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    code = process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    code = None
            else:
                code = process.poll()
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
        output = log_path.read_text(errors="replace")
        outputs.append(f"$ {command}\n{output}")
        if not started:
            problems.append(f"`{command.strip()}` " + (f"exited {code} without listening" if code is not None else f"did not listen within {timeout:.0f} s"))
        elif code != 0:
            problems.append(f"`{command.strip()}` " + ("did not stop on SIGTERM" if code is None else f"exited {code} on SIGTERM"))
    block.outcome = "fail" if problems else "pass"
    block.detail = "; ".join(problems)
    report(block)
    if problems or verbose:
        print("  output:\n" + tail("\n".join(outputs)), flush=True)


def run_chain(chain: Chain, binary: Path, work: Path, timeout: float, verbose: bool) -> None:
    """One bash runs the chain's blocks in order; after each, it notes the block's index on fd 3."""
    parts = ['exec 3>>"$1"; set --']
    for position, block in enumerate(chain.blocks):
        parts.append(f"# README.md line {block.line}\n{block.code}\nprintf '%s\\n' {position} >&3")
    script = work / "block.sh"
    script.write_text("\n".join(parts) + "\n")
    status = work / "status"
    status.write_text("")
    env = dict(os.environ)
    env["PATH"] = f"{work / 'absent-tools'}{os.pathsep}{env.get('PATH', '')}"
    for key in [k for k in env if k.startswith("PAYMENT_SANDBOX_")]:
        del env[key]
    sandbox = Sandbox(binary, work)
    try:
        sandbox.start()
    except ReadmeError as error:
        for block in chain.blocks:
            block.outcome, block.detail = "fail", "sandbox did not start"
        print(error, flush=True)
        return
    timed_out = False
    process = subprocess.Popen(["bash", "--noprofile", "--norc", "-euo", "pipefail", str(script), str(status)],
                               cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout * len(chain.blocks))
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # anything the block left running in the background
        except ProcessLookupError:
            pass
        sandbox.stop()
    text = output.decode(errors="replace")
    done = {int(line) for line in status.read_text().split()}
    unexplained = unexplained_errors(sandbox.output(), "".join(block.code for block in chain.blocks))
    failed_shown = False
    for position, block in enumerate(chain.blocks):
        if position in done and unexplained:
            block.outcome = "fail"
            block.detail = "the sandbox answered " + "; ".join(unexplained[:3]) + " (the block does not mention the status)"
            failed_shown = True
        elif position in done:
            block.outcome = "pass"
        elif not failed_shown:
            block.outcome = "fail"
            block.detail = f"timed out after {timeout * len(chain.blocks):.0f} s" if timed_out else f"bash exited {process.returncode}"
            failed_shown = True
        else:
            block.outcome, block.detail = "fail", "not reached: an earlier block of its chain failed"
        report(block)
    if failed_shown or verbose:
        print("  output:\n" + tail(text), flush=True)
    if failed_shown:
        print("  sandbox log:\n" + tail(sandbox.output(), 20), flush=True)


# Swift blocks ------------------------------------------------------------------------------------------------

PACKAGE_SWIFT = """// swift-tools-version:6.0
// Generated by scripts/readme/run-examples.py: the README's Swift examples as one test target.
import PackageDescription

let package = Package(
    name: "readme-examples",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: {repo})],
    targets: [
        .testTarget(name: "ReadmeExampleTests",
                    dependencies: [.product(name: "PaymentSandbox", package: "{package}"),
                                   .product(name: "PaymentSandboxTesting", package: "{package}")],
                    path: "Tests/ReadmeExampleTests"),
    ],
    swiftLanguageModes: [.v6]
)
"""


def swift_file_name(block: Block) -> str:
    return f"ReadmeLine{block.line}.swift"


def run_swift(blocks: list[Block], timeout: float, verbose: bool) -> None:
    package = REPO / ".build" / "readme-swift"
    tests = package / "Tests" / "ReadmeExampleTests"
    if tests.exists():
        shutil.rmtree(tests)
    tests.mkdir(parents=True)
    (package / "Package.swift").write_text(
        PACKAGE_SWIFT.replace("{repo}", '"' + str(REPO).replace("\\", "\\\\").replace('"', '\\"') + '"')
        .replace("{package}", REPO.name))
    for block in blocks:
        (tests / swift_file_name(block)).write_text(f"// README.md line {block.line}\n{block.code}")
    print(f"(building and testing {len(blocks)} Swift example(s) in {package.relative_to(REPO)}: swift test)", flush=True)
    try:
        result = subprocess.run(["swift", "test"], cwd=package, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=timeout)
        text, code = result.stdout.decode(errors="replace"), result.returncode
    except subprocess.TimeoutExpired as error:
        text, code = (error.stdout or b"").decode(errors="replace") + f"\n(timed out after {timeout:.0f} s)", -1
    named = {block.line for block in blocks if re.search(rf"\b{swift_file_name(block)}:\d+", text)}
    for block in blocks:
        if code == 0:
            block.outcome = "pass"
        elif block.line in named:
            block.outcome, block.detail = "fail", "an error or failed assertion in this block (see the output)"
        else:
            block.outcome, block.detail = "fail", f"swift test exited {code}"
        report(block)
    if code != 0 or verbose:
        print("  swift test:\n" + tail(text, 80), flush=True)


# -------------------------------------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description="Run the README's shell and Swift examples.")
    parser.add_argument("--binary", required=True, type=Path, help="the payment-sandbox executable to serve with")
    parser.add_argument("--readme", type=Path, default=REPO / "README.md")
    parser.add_argument("--only", type=int, action="append", default=[],
                        help="run only the block (or chain) whose fence is on this line; repeatable")
    parser.add_argument("--no-swift", action="store_true", help="do not build and run the Swift examples")
    parser.add_argument("--timeout", type=float, default=180, help="seconds per shell block (default 180)")
    parser.add_argument("--swift-timeout", type=float, default=1800, help="seconds for the Swift package")
    parser.add_argument("--verbose", action="store_true", help="print every block's output")
    arguments = parser.parse_args()

    binary = arguments.binary.resolve()
    if not os.access(binary, os.X_OK):
        print(f"run-examples: {arguments.binary} is not an executable", file=sys.stderr)
        return 2
    try:
        blocks = parse(arguments.readme)
    except ReadmeError as error:
        print(f"run-examples: {arguments.readme}: {error}", file=sys.stderr)
        return 2

    chains: list[Chain] = []
    swift_blocks: list[Block] = []
    previous_shell: Block | None = None
    for block in blocks:
        if block.language in SHELL_LANGUAGES:
            if block.continues:
                if previous_shell is None:
                    print(f"run-examples: line {block.line}: 'continues' needs a shell block before it", file=sys.stderr)
                    return 2
                chains[-1].blocks.append(block)
            else:
                chains.append(Chain([block]))
            previous_shell = block
        elif block.language in SWIFT_LANGUAGES:
            swift_blocks.append(block)
    runnable = [b for b in blocks if b.language in SHELL_LANGUAGES | SWIFT_LANGUAGES]

    unknown = set(arguments.only) - {b.line for b in runnable}
    if unknown:
        print(f"run-examples: no sh or swift fence on line(s) {sorted(unknown)}", file=sys.stderr)
        return 2

    def selected(chain_blocks: list[Block]) -> bool:
        return not arguments.only or any(b.line in arguments.only for b in chain_blocks)

    with tempfile.TemporaryDirectory(prefix="readme-examples-") as temporary:
        work = Path(temporary)
        absent_tool_shims(work / "absent-tools")
        for chain in chains:
            if not selected(chain.blocks):
                continue
            skipped = [b for b in chain.blocks if b.skip]
            if skipped:
                if skipped[0] is not chain.blocks[0] or len(skipped) != len(chain.blocks):
                    print(f"run-examples: line {skipped[0].line}: a chain is skipped whole or not at all", file=sys.stderr)
                    return 2
                for block in chain.blocks:
                    block.outcome = "skip"
                    report(block)
                continue
            if chain.blocks[0].servers:
                if len(chain.blocks) > 1:
                    print(f"run-examples: line {chain.blocks[1].line}: a block cannot continue a servers block", file=sys.stderr)
                    return 2
                run_servers(chain.blocks[0], work, arguments.timeout, arguments.verbose)
            else:
                run_chain(chain, binary, work, arguments.timeout, arguments.verbose)
        swift_selected = [b for b in swift_blocks if selected([b])]
        for block in [b for b in swift_selected if b.skip]:
            block.outcome = "skip"
            report(block)
        to_build = [b for b in swift_selected if not b.skip]
        if to_build and arguments.no_swift:
            for block in to_build:
                block.outcome, block.skip = "skip", "--no-swift"
                report(block)
        elif to_build:
            run_swift(to_build, arguments.swift_timeout, arguments.verbose)

    done = [b for b in runnable if b.outcome]
    passed = sum(b.outcome == "pass" for b in done)
    failed = sum(b.outcome == "fail" for b in done)
    skipped = sum(b.outcome == "skip" for b in done)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
