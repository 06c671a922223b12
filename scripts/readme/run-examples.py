#!/usr/bin/env python3
"""Runs every example of README.md (or of other Markdown pages) as a reader would copy it, and fails when one fails.

    python3 scripts/readme/run-examples.py --binary .build/debug/payment-sandbox [--readme FILE [FILE ...]]
                                           [--python PYTHON] [--only [FILE:]LINE] [--verbose] [--no-swift]

--readme takes one or more Markdown files (default README.md), e.g. `--readme docs/clients/*.md`; each is
parsed on its own (markers, `continues`), and their blocks run one after the other.

Fenced blocks:
- ```sh / ```bash / ```shell: run with `bash -euo pipefail`, in the repository, each block in a fresh bash
  against a freshly started sandbox on 127.0.0.1:8080 (the binary given, with the bundled scenarios, as
  `swift run payment-sandbox` serves it). A failing command fails the block.
- ```python (or python3, py): run as a script by the interpreter of --python (default: the one running this
  script; CI gives a venv's with `requests`), in the repository, against a freshly started sandbox on
  127.0.0.1:8080 as a shell block is. An exception (a non-zero exit) fails the block.
- ```swift: all Swift blocks become the test target of one temporary SwiftPM package under
  .build/readme-swift/ that depends on this repository by path (and on every library product it declares);
  `swift test` builds and runs them. Each block must therefore be a whole file (imports included).
- Any other language (text, json, xml, php, kotlin, ...) is not run. A fence without a language is an error:
  say whether it is something to run (sh, python, swift) or a sample (text, json).

A marker on the line right before the fence changes that:
- `<!-- readme-example: skip (reason) -->`: not run; the reason is printed (and required).
- `<!-- readme-example: continues -->`: a shell or python block run against the same sandbox, right after the
  shell or python block before it in the same file (for a page that says "in the same shell as above"). A shell
  block continuing a shell block runs in the same bash (its variables); a python block is a script of its own
  and shares only the sandbox's state (and what the bash before it exported).
- `<!-- readme-example: servers -->`: every command line of the block starts a server (`swift run
  payment-sandbox --port 0`, ...): no sandbox is started for it; each line runs alone until its output says
  "listening on" (it fails if the command exits first), then gets SIGTERM and must exit 0.

curl exits 0 whatever the status, so a block also fails when the sandbox answered one of its requests with
a 4xx or 5xx status that the block does not mention (an example that shows an error says its status).

`jq` and `uuidgen` are not on a fresh Debian machine: the blocks see commands of those names that fail.
Prints per block the file, section, line and pass / fail / skip (reason), then "N passed, N failed, N skipped".
Exits 1 when a block fails, 2 when a page or the set-up is wrong. Port 8080 must be free.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
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
PYTHON_LANGUAGES = {"python", "python3", "py"}
# Blocks that run against a started sandbox, one after the other in a bash (a chain).
CHAIN_LANGUAGES = SHELL_LANGUAGES | PYTHON_LANGUAGES
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
    doc: str = "README.md"  # the page, as given (relative to the repository when inside it)
    skip: str | None = None  # the reason
    continues: bool = False
    servers: bool = False
    outcome: str = ""  # pass, fail, skip
    detail: str = ""


@dataclass
class Chain:
    """Shell and python blocks that run in one bash against one sandbox: a block and those that continue it."""
    blocks: list[Block] = field(default_factory=list)


def doc_label(path: Path) -> str:
    """The page's name in reports and generated files: relative to the repository when inside it."""
    resolved = path.resolve()
    try:
        return str(resolved.relative_to(REPO))
    except ValueError:
        return str(path)


def parse(readme: Path) -> list[Block]:
    label = doc_label(readme)
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
            raise ReadmeError(f"line {number}: fence without a language: use sh, python or swift (run) or text, json, ... (not run)")
        block = Block(line=number, section=section, language=language, code="\n".join(body) + "\n", doc=label)
        if pending:
            kind, reason = pending[1].group("kind"), (pending[1].group("reason") or "").strip()
            if kind == "skip":
                if not reason:
                    raise ReadmeError(f"line {pending[0]}: a skip needs its reason: <!-- readme-example: skip (why) -->")
                block.skip = reason
            elif kind == "continues":
                if language not in CHAIN_LANGUAGES:
                    raise ReadmeError(f"line {pending[0]}: only shell and python blocks can continue another")
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
    print(f"[{block.doc} / {block.section}] line {block.line} ({block.language}): {text}" + (f": {block.detail}" if block.detail and block.outcome == "fail" else ""), flush=True)


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


def run_chain(chain: Chain, binary: Path, work: Path, timeout: float, verbose: bool, python: str) -> None:
    """One bash runs the chain's blocks in order (a python block as `$python file`); after each, it notes the
    block's index on fd 3."""
    parts = ['exec 3>>"$1"; set --']
    for position, block in enumerate(chain.blocks):
        if block.language in PYTHON_LANGUAGES:
            source = work / f"block-{position}.py"
            source.write_text(f"# {block.doc} line {block.line}\n{block.code}")
            code = f"{shlex.quote(python)} {shlex.quote(str(source))}"
        else:
            code = block.code
        parts.append(f"# {block.doc} line {block.line}\n{code}\nprintf '%s\\n' {position} >&3")
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
// Generated by scripts/readme/run-examples.py: the pages' Swift examples as one test target.
import PackageDescription

let package = Package(
    name: "readme-examples",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: {repo})],
    targets: [
        .testTarget(name: "ReadmeExampleTests",
                    dependencies: [{products}],
                    path: "Tests/ReadmeExampleTests"),
    ],
    swiftLanguageModes: [.v6]
)
"""


LIBRARY_PRODUCT = re.compile(r'\.library\(\s*name:\s*"(?P<name>[^"]+)"')


def library_products(manifest: str) -> list[str]:
    """The library products a Package.swift declares, in order: the examples may import any of them."""
    return list(dict.fromkeys(match["name"] for match in LIBRARY_PRODUCT.finditer(manifest)))


def swift_file_name(block: Block) -> str:
    """README.md line 12: ReadmeLine12.swift; docs/clients/swift-package.md line 40: DocsClientsSwiftPackageLine40.swift."""
    stem = re.sub(r"\.md$", "", block.doc, flags=re.IGNORECASE)
    words = [word for word in re.split(r"[^A-Za-z0-9]+", stem) if word]
    return "".join(word[:1].upper() + word[1:].lower() for word in words) + f"Line{block.line}.swift"


def run_swift(blocks: list[Block], timeout: float, verbose: bool) -> None:
    package = REPO / ".build" / "readme-swift"
    tests = package / "Tests" / "ReadmeExampleTests"
    if tests.exists():
        shutil.rmtree(tests)
    tests.mkdir(parents=True)
    products = library_products((REPO / "Package.swift").read_text(encoding="utf-8"))
    (package / "Package.swift").write_text(
        PACKAGE_SWIFT.replace("{repo}", '"' + str(REPO).replace("\\", "\\\\").replace('"', '\\"') + '"')
        .replace("{products}", ",\n                                   ".join(
            f'.product(name: "{name}", package: "{REPO.name}")' for name in products)))
    for block in blocks:
        (tests / swift_file_name(block)).write_text(f"// {block.doc} line {block.line}\n{block.code}")
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

def chains_of(blocks: list[Block]) -> list[Chain]:
    """The shell and python blocks of one page in chains: a block and the blocks that continue it."""
    chains: list[Chain] = []
    for block in blocks:
        if block.language not in CHAIN_LANGUAGES:
            continue
        if block.continues:
            if not chains:
                raise ReadmeError(f"line {block.line}: 'continues' needs a shell or python block before it")
            chains[-1].blocks.append(block)
        else:
            chains.append(Chain([block]))
    for chain in chains:
        if chain.blocks[0].servers and len(chain.blocks) > 1:
            raise ReadmeError(f"line {chain.blocks[1].line}: a block cannot continue a servers block")
        skipped = [b for b in chain.blocks if b.skip]
        if skipped and (skipped[0] is not chain.blocks[0] or len(skipped) != len(chain.blocks)):
            raise ReadmeError(f"line {skipped[0].line}: a chain is skipped whole or not at all")
    return chains


def parse_only(values: list[str], docs: list[str]) -> set[tuple[str, int]]:
    """`--only LINE` (one page given) or `--only FILE:LINE`, as (page label, line)."""
    selected = set()
    for value in values:
        name, _, line = value.rpartition(":")
        if not line.isdigit():
            raise ReadmeError(f"--only {value}: give LINE or FILE:LINE")
        if not name:
            if len(docs) != 1:
                raise ReadmeError(f"--only {value}: several pages are given: say which, as FILE:LINE")
            name = docs[0]
        else:
            name = doc_label(Path(name))
            if name not in docs:
                raise ReadmeError(f"--only {value}: {name} is not among the pages given")
        selected.add((name, int(line)))
    return selected


def main() -> int:
    parser = argparse.ArgumentParser(description="Run the shell, python and Swift examples of README.md or other pages.")
    parser.add_argument("--binary", required=True, type=Path, help="the payment-sandbox executable to serve with")
    parser.add_argument("--readme", type=Path, nargs="+", action="extend", metavar="FILE",
                        help="the Markdown pages whose examples run (default README.md); repeatable")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter of the python blocks (default: this one), e.g. a venv's with requests")
    parser.add_argument("--only", action="append", default=[], metavar="[FILE:]LINE",
                        help="run only the block (or chain) whose fence is on this line of FILE (of the only page "
                             "given, without FILE); repeatable")
    parser.add_argument("--no-swift", action="store_true", help="do not build and run the Swift examples")
    parser.add_argument("--timeout", type=float, default=180, help="seconds per shell or python block (default 180)")
    parser.add_argument("--swift-timeout", type=float, default=1800, help="seconds for the Swift package")
    parser.add_argument("--verbose", action="store_true", help="print every block's output")
    arguments = parser.parse_args()
    pages: list[Path] = arguments.readme or [REPO / "README.md"]

    binary = arguments.binary.resolve()
    if not os.access(binary, os.X_OK):
        print(f"run-examples: {arguments.binary} is not an executable", file=sys.stderr)
        return 2
    blocks: list[Block] = []
    chains: list[Chain] = []
    for page in pages:
        try:
            page_blocks = parse(page)
            chains += chains_of(page_blocks)
        except (ReadmeError, OSError) as error:
            print(f"run-examples: {page}: {error}", file=sys.stderr)
            return 2
        blocks += page_blocks
    docs = list(dict.fromkeys(doc_label(page) for page in pages))
    if len(docs) != len(pages):
        print("run-examples: a page is given twice", file=sys.stderr)
        return 2
    swift_blocks = [b for b in blocks if b.language in SWIFT_LANGUAGES]
    runnable = [b for b in blocks if b.language in CHAIN_LANGUAGES | SWIFT_LANGUAGES]
    names = [swift_file_name(b) for b in swift_blocks]
    if len(set(names)) != len(names):
        print("run-examples: two pages' Swift blocks would share a file name: " + ", ".join(sorted(names)), file=sys.stderr)
        return 2

    try:
        only = parse_only(arguments.only, docs)
    except ReadmeError as error:
        print(f"run-examples: {error}", file=sys.stderr)
        return 2
    unknown = only - {(b.doc, b.line) for b in runnable}
    if unknown:
        listed = ", ".join(f"{doc}:{line}" for doc, line in sorted(unknown))
        print(f"run-examples: no sh, python or swift fence on line(s) {listed}", file=sys.stderr)
        return 2

    def selected(chain_blocks: list[Block]) -> bool:
        return not only or any((b.doc, b.line) in only for b in chain_blocks)

    python_needed = any(b.language in PYTHON_LANGUAGES and not b.skip for chain in chains
                        if selected(chain.blocks) for b in chain.blocks)
    if python_needed and not (shutil.which(arguments.python) or os.access(arguments.python, os.X_OK)):
        print(f"run-examples: --python {arguments.python} is not an executable", file=sys.stderr)
        return 2
    # Absolute (the blocks run in the repository), but not resolved: a venv's python is a symbolic link, and only
    # through the link does it find its venv.
    python = os.path.abspath(shutil.which(arguments.python) or arguments.python)

    with tempfile.TemporaryDirectory(prefix="readme-examples-") as temporary:
        work = Path(temporary)
        absent_tool_shims(work / "absent-tools")
        for chain in chains:
            if not selected(chain.blocks):
                continue
            if chain.blocks[0].skip:
                for block in chain.blocks:
                    block.outcome = "skip"
                    report(block)
                continue
            if chain.blocks[0].servers:
                run_servers(chain.blocks[0], work, arguments.timeout, arguments.verbose)
            else:
                run_chain(chain, binary, work, arguments.timeout, arguments.verbose, python)
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
