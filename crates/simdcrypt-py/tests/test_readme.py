"""The README's and the guides' Python examples run, and the output they show is the
output they give.

Every ```python block of README.md (at the repository root) and of the guides in
``GUIDES`` (docs/python-api.md, docs/algorithms.md: where the README's per-algorithm
sections moved) is one test, named after the file, the section it is in and its line. The
convention, also stated at the top of the README's examples and of each guide:

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

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
# Guides whose Python examples are tests under the same rules as the README's.
GUIDES = [ROOT / "docs" / "python-api.md", ROOT / "docs" / "algorithms.md"]

FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)


def readme_blocks(path: Path = README) -> list[tuple[str, str]]:
    """(test id, code) for every ```python block of one file, in order. The code is
    preceded by blank lines so that line numbers in failures are the file's."""
    text = path.read_text(encoding="utf-8")
    prefix = "" if path == README else f"{path.stem}-"
    blocks = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        headings = HEADING.findall(text, 0, match.start())
        section = headings[-1] if headings else "top"
        slug = re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")
        blocks.append((f"{prefix}{slug}-line{line}", "\n" * line + match.group(1)))
    return blocks


def all_blocks() -> list[tuple[str, Path, str]]:
    return [(name, path, code) for path in [README, *GUIDES] for name, code in readme_blocks(path)]


BLOCKS = all_blocks()


def test_readme_has_python_examples() -> None:
    # The test must fail, not pass vacuously, if the fence or a path ever changes.
    assert len(readme_blocks(README)) >= 3, f"too few ```python blocks in {README}"
    for guide in GUIDES:
        assert len(readme_blocks(guide)) >= 2, f"too few ```python blocks in {guide}"


@pytest.mark.parametrize(
    ("path", "code"), [(path, code) for _, path, code in BLOCKS], ids=[name for name, _, _ in BLOCKS]
)
def test_readme_example(path: Path, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    if re.search(r"^\s*>>> ", code, re.MULTILINE):
        parser = doctest.DocTestParser()
        test = parser.get_doctest(code, {}, path.name, str(path), 0)
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
        exec(compile(code, str(path), "exec"), {"__name__": "__readme__"})
