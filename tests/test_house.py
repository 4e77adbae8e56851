"""The house's own rules, checked on the source: the import graphs of ``solver/`` and ``service/`` have no
cycle (imports inside functions and under ``TYPE_CHECKING`` count: they are cycles postponed, not removed), the
answer chain reaches no research module, routes reach the store and the job engine only through the service layer,
no module is over 600 lines, and docs/architecture.md describes every module there is and no other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("solver", "service")
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    """Every module of the two packages by dotted name (a package by its ``__init__``)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of the two packages that ``name`` imports, wherever the import statement sits."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in modules:
                    out.add(target)  # ``from service.api import parse``: the module itself
                elif base in modules:
                    out.add(base)
    out.discard(name)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_import_graphs_have_no_cycle() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    # a package's __init__ is imported by every module below it: an edge from the package down to one of its
    # modules would make a false cycle of any re-export, so those edges are left out of the check
    for name in graph:
        graph[name] = {t for t in graph[name] if not t.startswith(name + ".")}
    assert _cycles(graph) == []


def test_the_cycle_check_sees_a_cycle_through_an_import_inside_a_function(tmp_path: Path) -> None:
    """The check above could pass by seeing nothing: on two modules that import each other, one of them only
    inside a function, it finds the cycle."""
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from a import g\n")
    modules = {"a": tmp_path / "a.py", "b": tmp_path / "b.py"}
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _cycles(graph) == [["a", "b"]]


def _reach(start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others, function-level imports included."""
    modules = _modules()
    seen: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(_imports(name, modules[name], modules))
    return seen


LAB = re.compile(r"rollout|polish|bound_campaign|bound_files|step_run|sweep|record_check|checks|atlas_runs|"
                 r"secondbound|partledger|lowerbound|boundmemo|boundkernel|feasible|campaign_units|campaign_plans")
"""The modules that make shipped knowledge (bounds, rollouts, polishes, steps, sweeps, checks, atlas runs): a
question's path carries none of them."""


def test_the_answer_chain_carries_no_research() -> None:
    """Every position question goes down :mod:`service.answers`: it reaches the readers of shipped data, the store
    and the solver's search, and no module of the lab (and stays a small part of the house)."""
    reached = _reach("service.answers")
    assert sorted(m for m in reached if LAB.search(m)) == []
    assert len(reached) <= 45


KEEPING = ("service.keeping", "service.atlas_keeping", "service.records_keeping", "service.bound_keeping",
           "service.bound_campaigns", "service.bound_files", "service.atlas_runs", "service.checks",
           "service.record_checks", "service.polishes", "service.rollouts", "service.step_runs", "service.cli.atlas",
           "service.cli.records", "service.cli.steps", "service.cli.improving", "service.jobs.campaign_kinds",
           "service.jobs.campaign_units", "service.jobs.campaign_plans")
"""The service's modules that make and keep shipped knowledge (the atlas's and the records' keepers, the
campaigns' kinds and commands): found through entry points (``pyproject.toml``), never imported by the product."""


def test_the_product_imports_none_of_the_lab() -> None:
    """The HTTP app, the worker's engine and the command line reach the lab's kinds and commands only through their
    entry points: none of their imports, however indirect, is one of the lab's modules."""
    for start in ("service.app", "service.wsgi", "service.cli", "service.jobs.coordinator"):
        assert sorted(set(KEEPING) & _reach(start)) == [], start
    assert all(name in _modules() for name in KEEPING)


def test_routes_call_the_service_layer_not_the_store_or_the_job_engine() -> None:
    """A route parses, calls one function of the service layer (:mod:`service.calls`, the answer chain...) and
    answers: no module of ``service.api`` imports the store or the job engine, nor reads the settings by a string
    key of the app's config."""
    modules = _modules()
    for name, path in modules.items():
        if not name.startswith("service.api."):
            continue
        direct = _imports(name, path, modules)
        assert sorted(m for m in direct if m.startswith(("service.store", "service.jobs"))) == [], name
        assert 'config["SETTINGS"]' not in path.read_text(encoding="utf-8"), name


def _import_nodes(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, wherever it sits."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]


def test_only_the_store_talks_sql() -> None:
    """SQLAlchemy is imported by ``service/store/`` alone: the rest asks the store (a URL's file, a table's
    presence, the errors a database raises), whatever door it comes in by."""
    talking = set()
    for name, path in _modules().items():
        if name.startswith("service.store"):
            continue
        for node in _import_nodes(path):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if any(n == "sqlalchemy" or n.startswith("sqlalchemy.") for n in names):
                talking.add(name)
    assert sorted(talking) == []


def test_no_private_name_is_imported_from_another_module() -> None:
    """What one module shares with another is public and named for what it is: no ``from x import _name``."""
    found = []
    for name, path in _modules().items():
        for node in _import_nodes(path):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(PACKAGES)):
                found += [f"{name}: {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []


def test_no_module_is_over_600_lines() -> None:
    long = {str(path.relative_to(REPO)): n for path in _modules().values()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_the_architecture_lists_every_module_and_no_other() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `((?:solver|service)/[a-z_/]+\.py)` \|", text, re.MULTILINE))
    there = {str(path.relative_to(REPO)) for path in _modules().values()}
    assert (there - listed, listed - there) == (set(), set())


def test_the_docs_name_no_commit() -> None:
    """README and docs (their dated notes included) describe the product as it is: a measurement's history lives
    in the benchmarks' output, not as commit hashes in prose.  Every word of 7 to 40 hex digits is asked of git
    (a clone has its history; a folder without one has nothing to ask)."""
    import shutil
    import subprocess

    if shutil.which("git") is None or not (REPO / ".git").exists():
        return
    texts = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    words = sorted({w for t in texts for w in re.findall(r"\b[0-9a-f]{7,40}\b", t.read_text(encoding="utf-8"))})
    asked = subprocess.run(["git", "cat-file", "--batch-check"], cwd=REPO, capture_output=True, text=True,
                           input="".join(f"{w}^{{commit}}\n" for w in words), check=True).stdout.splitlines()
    assert [w for w, answer in zip(words, asked, strict=True) if answer.split()[1:2] == ["commit"]] == []


README_MAX_WORDS = 60
"""The longest sentence the README's prose may have: a front page is read, not parsed."""


def _prose_sentences(text: str) -> list[str]:
    """The sentences of a Markdown page's prose: its paragraphs and list items, without code blocks, tables,
    headings or images, each cut at a full stop (or ? and !) followed by a new sentence."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    units: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if not lines or lines[0].startswith(("|", "#", "![")):
            continue
        items: list[list[str]] = [[]]
        for line in lines:
            if line.startswith("- ") and items[-1]:
                items.append([])
            items[-1].append(line.removeprefix("- "))
        units.extend(" ".join(item) for item in items)
    return [s for unit in units for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*`\[(])", unit) if s]


def test_the_readme_reads_in_sentences_a_person_can_follow() -> None:
    """No sentence of the README's prose runs past README_MAX_WORDS words (one paragraph was a single sentence of
    about 170)."""
    sentences = _prose_sentences((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(sentences) > 30
    assert [s[:80] for s in sentences if len(s.split()) > README_MAX_WORDS] == []


def test_only_the_store_takes_file_locks() -> None:
    """Claims and leases of long work live in the database (``service.store.claims``, the job store); the one file
    lock left serialises rewrites of a shared JSON file, inside :func:`service.store.files.update_json`: no other
    module locks a file."""
    locking = set()
    for name, path in _modules().items():
        if name.startswith("service.store"):
            continue
        for node in _import_nodes(path):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [f"{node.module}.{a.name}" for a in node.names])
            if any(n == "fcntl" or n.startswith("fcntl.") or n.endswith(".one_writer") for n in names):
                locking.add(name)
    assert sorted(locking) == []
