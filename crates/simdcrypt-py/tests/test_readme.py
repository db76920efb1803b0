"""The README's Python examples run, and the output they show is the output they give.

Every ```python block of README.md (at the repository root) is one test, named after the
README section it is in and its line. The convention, also stated at the top of the
README's Python section:

- A block with `>>> ` prompts is a doctest: each statement's shown output is compared
  with what it prints (ELLIPSIS and NORMALIZE_WHITESPACE on).
- Any other block is run as a script; what it claims it checks with `assert`.
- Each block runs on its own (fresh globals: it does its own imports) with a fresh
  temporary directory as the working directory, so an example that needs a file writes
  it there first.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[3] / "README.md"

FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)


def readme_blocks() -> list[tuple[str, str]]:
    """(test id, code) for every ```python block, in order. The code is preceded by blank
    lines so that line numbers in failures are the README's."""
    text = README.read_text(encoding="utf-8")
    blocks = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        headings = HEADING.findall(text, 0, match.start())
        section = headings[-1] if headings else "top"
        slug = re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")
        blocks.append((f"{slug}-line{line}", "\n" * line + match.group(1)))
    return blocks


BLOCKS = readme_blocks()


def test_readme_has_python_examples() -> None:
    # The test must fail, not pass vacuously, if the fence or the path ever changes.
    assert len(BLOCKS) >= 5, f"found only {len(BLOCKS)} ```python blocks in {README}"


@pytest.mark.parametrize("code", [code for _, code in BLOCKS], ids=[name for name, _ in BLOCKS])
def test_readme_example(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    if re.search(r"^\s*>>> ", code, re.MULTILINE):
        parser = doctest.DocTestParser()
        test = parser.get_doctest(code, {}, "README.md", str(README), 0)
        test.globs["__name__"] = "__readme__"
        runner = doctest.DocTestRunner(
            optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
        )
        failures: list[str] = []

        def report(out: str) -> None:
            failures.append(out)

        runner.run(test, out=report)
        assert runner.failures == 0, "".join(failures)
    else:
        exec(compile(code, str(README), "exec"), {"__name__": "__readme__"})
