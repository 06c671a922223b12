#!/usr/bin/env python3
"""Tests of run-examples.py's page parsing, chains, names and error-status check (no sandbox needed).

    python3 scripts/readme/test_run_examples.py
"""

import importlib.util
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("run_examples", HERE / "run-examples.py")
run_examples = importlib.util.module_from_spec(spec)
sys.modules["run_examples"] = run_examples  # dataclasses look their module up
spec.loader.exec_module(run_examples)


def parse(text: str):
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as file:
        file.write(text)
    try:
        return run_examples.parse(Path(file.name))
    finally:
        Path(file.name).unlink()


class ParseTests(unittest.TestCase):
    def test_blocks_carry_language_section_line_and_code(self):
        blocks = parse("# A\n\n## B c\n```sh\necho 1\n```\n```json\n{}\n```\n```swift\nlet x = 1\n```\n")
        self.assertEqual([(b.language, b.section, b.line) for b in blocks],
                         [("sh", "B c", 4), ("json", "B c", 7), ("swift", "B c", 10)])
        self.assertEqual(blocks[0].code, "echo 1\n")

    def test_markers_apply_to_the_next_fence_only(self):
        blocks = parse("<!-- readme-example: skip (needs Docker) -->\n```sh\ndocker ps\n```\n"
                       "<!-- readme-example: continues -->\n```bash\nx\n```\n```sh\ny\n```\n"
                       "<!-- readme-example: servers -->\n```sh\nswift run payment-sandbox\n```\n")
        self.assertEqual(blocks[0].skip, "needs Docker")
        self.assertTrue(blocks[1].continues)
        self.assertEqual((blocks[2].skip, blocks[2].continues, blocks[2].servers), (None, False, False))
        self.assertTrue(blocks[3].servers)

    def test_an_indented_fence_loses_its_indentation_and_keeps_nested_backticks(self):
        blocks = parse("- item\n  ```sh\n  echo '```'\n    two\n  ```\n")
        self.assertEqual(blocks[0].code, "echo '```'\n  two\n")

    def test_a_longer_fence_holds_a_shorter_one(self):
        blocks = parse("````text\n```sh\nnot a block\n```\n````\n")
        self.assertEqual(len(blocks), 1)
        self.assertEqual(blocks[0].language, "text")

    def test_mistakes_in_the_readme_are_errors(self):
        for text, message in [
            ("```\nx\n```\n", "without a language"),
            ("<!-- readme-example: skip -->\n```sh\nx\n```\n", "needs its reason"),
            ("<!-- readme-example: skip (x) -->\n\n```sh\nx\n```\n", "right before a fence"),
            ("<!-- readme-example: skip (x) -->\n", "right before a fence"),
            ("<!-- readme-example: skip (x) -->\n<!-- readme-example: skip (y) -->\n```sh\nx\n```\n", "not followed by a fence"),
            ("<!-- readme-example: maybe -->\n```sh\nx\n```\n", "unknown readme-example marker"),
            ("<!-- readme-example: continues -->\n```swift\nx\n```\n", "only shell and python blocks"),
            ("```sh\nx\n", "never closed"),
        ]:
            with self.subTest(text=text):
                with self.assertRaises(run_examples.ReadmeError) as raised:
                    parse(text)
                self.assertIn(message, str(raised.exception))


    def test_python_blocks_chain_with_shell_blocks_of_the_same_page(self):
        blocks = parse("```sh\nexport A=1\n```\n<!-- readme-example: continues -->\n```python\nprint(1)\n```\n"
                       "```python\nprint(2)\n```\n<!-- readme-example: continues -->\n```sh\necho $A\n```\n"
                       "```php\n<?php echo 1;\n```\n")
        chains = run_examples.chains_of(blocks)
        self.assertEqual([[b.line for b in chain.blocks] for chain in chains], [[1, 5], [8, 12]])

    def test_chain_mistakes_are_errors(self):
        for text, message in [
            ("<!-- readme-example: continues -->\n```python\nx\n```\n", "needs a shell or python block before it"),
            ("<!-- readme-example: servers -->\n```sh\nx\n```\n<!-- readme-example: continues -->\n```sh\ny\n```\n",
             "cannot continue a servers block"),
            ("<!-- readme-example: skip (y) -->\n```sh\nx\n```\n<!-- readme-example: continues -->\n```python\ny\n```\n",
             "skipped whole or not at all"),
        ]:
            with self.subTest(text=text):
                with self.assertRaises(run_examples.ReadmeError) as raised:
                    run_examples.chains_of(parse(text))
                self.assertIn(message, str(raised.exception))


class NamingTests(unittest.TestCase):
    def test_swift_files_are_named_after_the_page_and_line(self):
        block = run_examples.Block(line=40, section="s", language="swift", code="", doc="docs/clients/swift-package.md")
        self.assertEqual(run_examples.swift_file_name(block), "DocsClientsSwiftPackageLine40.swift")
        block.doc = "README.md"
        self.assertEqual(run_examples.swift_file_name(block), "ReadmeLine40.swift")

    def test_library_products_come_from_the_manifest(self):
        manifest = ('products: [\n .library(name: "A", targets: ["A"]),\n .executable(name: "x", targets: ["x"]),\n'
                    '    .library(\n        name: "B", type: .static, targets: ["B"])]')
        self.assertEqual(run_examples.library_products(manifest), ["A", "B"])
        self.assertIn("PaymentSandboxTesting",
                      run_examples.library_products((run_examples.REPO / "Package.swift").read_text()))

    def test_only_takes_a_line_of_the_only_page_or_file_and_line(self):
        self.assertEqual(run_examples.parse_only(["12"], ["README.md"]), {("README.md", 12)})
        self.assertEqual(run_examples.parse_only(["docs/clients/ios.md:7"], ["README.md", "docs/clients/ios.md"]),
                         {("docs/clients/ios.md", 7)})
        for values, docs, message in [(["12"], ["a.md", "b.md"], "say which"), (["x"], ["a.md"], "LINE or FILE:LINE"),
                                      (["c.md:3"], ["a.md"], "not among the pages")]:
            with self.subTest(values=values):
                with self.assertRaises(run_examples.ReadmeError) as raised:
                    run_examples.parse_only(values, docs)
                self.assertIn(message, str(raised.exception))


class ErrorStatusTests(unittest.TestCase):
    LOG = ("payment-sandbox 0.1.0 listening on http://127.0.0.1:8080 (scenarios: /x)\n"
           "2026-11-25T17:17:54.974Z info 2-1 POST /payments/v1/sessions 200 0.442ms\n"
           "2026-11-25T17:17:54.975Z info 3-1 POST /ordermanagement/v1/orders/1/cancel 403 0.4ms\n"
           "2026-11-25T17:17:54.976Z error 4-1 GET /psp/paymentorders/1 503 1.5ms\n")

    def test_statuses_the_block_does_not_mention_are_reported(self):
        self.assertEqual(run_examples.unexplained_errors(self.LOG, "curl ...\n# 403 CANCEL_NOT_ALLOWED\n"),
                         ["503 to GET /psp/paymentorders/1"])

    def test_a_mentioned_status_is_accepted_but_not_as_part_of_a_longer_number(self):
        self.assertEqual(run_examples.unexplained_errors(self.LOG, "# 403, then 503\n"), [])
        self.assertEqual(len(run_examples.unexplained_errors(self.LOG, "amount 40300 and 15030\n")), 2)


class ReadmeTests(unittest.TestCase):
    # The pages CI passes to run-examples.py (.ci/run): the README and every page under docs/ and docs/clients/.
    CI_PAGES = ["README.md", "docs/*.md", "docs/clients/*.md"]

    def test_the_projects_readme_parses_and_has_a_block_that_runs(self):
        blocks = run_examples.parse(run_examples.REPO / "README.md")
        self.assertTrue(any(b.language == "sh" and not b.skip for b in blocks))
        self.assertTrue(any(b.language == "swift" and not b.skip for b in blocks))
        run_examples.chains_of(blocks)

    def test_every_docs_page_parses(self):
        pages = sorted((run_examples.REPO / "docs").rglob("*.md"))
        self.assertTrue(pages)
        for page in pages:
            with self.subTest(page=str(page.relative_to(run_examples.REPO))):
                run_examples.chains_of(run_examples.parse(page))

    def test_the_client_pages_each_have_a_block_that_runs(self):
        pages = sorted((run_examples.REPO / "docs" / "clients").glob("*.md"))
        self.assertTrue(pages)
        for page in pages:
            with self.subTest(page=page.name):
                blocks = run_examples.parse(page)
                self.assertTrue(any(b.language in run_examples.CHAIN_LANGUAGES | run_examples.SWIFT_LANGUAGES
                                    and not b.skip for b in blocks))

    def test_ci_runs_every_page_with_a_block_that_runs(self):
        ci = (run_examples.REPO / ".ci" / "run").read_text()
        self.assertIn("--readme " + " ".join(self.CI_PAGES), ci)
        covered = {page for pattern in self.CI_PAGES for page in run_examples.REPO.glob(pattern)}
        runnable = run_examples.CHAIN_LANGUAGES | run_examples.SWIFT_LANGUAGES
        for page in [run_examples.REPO / "README.md", *sorted((run_examples.REPO / "docs").rglob("*.md"))]:
            if any(b.language in runnable and not b.skip for b in run_examples.parse(page)):
                with self.subTest(page=str(page.relative_to(run_examples.REPO))):
                    self.assertIn(page, covered)

    def test_swift_examples_of_all_pages_do_not_share_a_file_name(self):
        pages = [run_examples.REPO / "README.md", *sorted((run_examples.REPO / "docs").rglob("*.md"))]
        names = [run_examples.swift_file_name(b) for page in pages for b in run_examples.parse(page)
                 if b.language in run_examples.SWIFT_LANGUAGES]
        self.assertEqual(len(names), len(set(names)))


if __name__ == "__main__":
    unittest.main()
