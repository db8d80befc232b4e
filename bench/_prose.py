"""Neutral filler prose for generated members: a fixed pool of sentences and label words.

The pool is built once from a constant seed, so it never depends on the corpus seed; each corpus
seed only chooses *which* sentences go where. Sentences hold lowercase words, commas and one final
period: no IDs, paths, parentheses, brackets, pipes, colons or backticks, so filler can never be
read as a citation, a field label, an amendment or table syntax.
"""

from __future__ import annotations

import random

__all__ = ["SENTENCES", "LABEL_WORDS", "NAME_WORDS", "SYSTEM_WORDS", "sentences", "label"]

_SUBJECTS = (
    "the runner", "the caller", "the curator", "the evaluator", "the extractor", "the scheduler",
    "the host process", "the provider client", "the retrieval step", "the checkpoint writer",
    "the prompt loader", "the session manager", "the indexer", "the planner", "the tool wrapper",
    "the update route", "the selection step", "the summary pass", "the configuration reader",
    "the background worker", "the review queue", "the archive job", "the context builder",
)
_VERBS = (
    "passes", "stores", "selects", "rewrites", "reloads", "drops", "ranks", "appends", "filters",
    "summarises", "forwards", "serialises", "replaces", "merges", "records", "returns", "reads",
    "compares", "tags", "defers", "batches", "expires", "retains", "validates", "copies",
)
_OBJECTS = (
    "the carried notes", "the prior answers", "the current question", "the tagged block",
    "the saved rows", "the selected examples", "the task target", "the whole history",
    "the configured prompt", "the returned state", "the dense vectors", "the model output",
    "the pending entries", "the session log", "the run parameters", "the cached summary",
    "the review verdict", "the later context", "the stale entries", "the raw traces",
)
_TAILS = (
    "before the next call", "after each evaluated item", "without a correctness check",
    "when the expected tags parse", "only within the current invocation", "across process restarts",
    "for every later item in the run", "under the configured budget", "without human approval",
    "unless the caller supplies another file", "while the process keeps running",
    "at the end of every round", "once the selection finishes", "when the flag is present",
    "with no expiry or integrity check", "in input order", "by descending similarity",
    "and the effect on answers is unobserved", "so the later consumer sees the replacement",
    "and nothing in the inspected code rolls it back",
)
_OPENERS = (
    "", "", "", "In the inspected code, ", "At the registered commit, ", "By design, ",
    "In this boundary, ", "As shipped, ", "On every round, ", "Within one run, ",
)
_CLOSERS = (
    "Actual operation was not observed.",
    "No execution trace was supplied for this path.",
    "The source alone does not establish the deployed permissions.",
    "This establishes wiring, not benefit.",
    "The prompt guidance is not an enforced check.",
    "Provider behaviour stays outside the frozen boundary.",
    "The inspected files agree on this order.",
    "Nothing here shows the effect on later answers.",
)

LABEL_WORDS = (
    "carried", "cached", "ranked", "saved", "tagged", "merged", "shared", "pending", "rolling",
    "local", "remote", "batch", "session", "review", "prompt", "model", "answer", "context",
    "history", "summary", "vector", "journal", "policy", "signal", "archive", "planner", "runner",
    "curator", "caller", "update", "resume", "selection", "extraction", "evaluation", "execution",
)
"""Words for record labels (``Carried session notes``)."""

NAME_WORDS = (
    "cache", "sheet", "store", "queue", "index", "ledger", "trace", "vector", "prompt", "answer",
    "state", "notes", "buffer", "journal", "policy", "signal", "archive", "planner", "runner",
    "curator", "caller", "model", "client", "worker", "review", "summary", "context", "history",
    "session", "config", "tool", "shell", "sandbox", "loader", "writer", "reader", "ranker",
    "filter", "merge", "resume", "update", "select", "extract", "evaluate", "execute", "retrieve",
    "compact", "expire", "admit", "reject", "route", "plan", "draft", "check", "report", "sync",
)
"""Words for record ID slugs. All are distinct; the second slug word carries the set number."""

SYSTEM_WORDS = (
    "Arden", "Basalt", "Cinder", "Delta", "Ember", "Fathom", "Garnet", "Harbor", "Indigo", "Juniper",
    "Kestrel", "Lumen", "Marlin", "Nimbus", "Onyx", "Pylon", "Quill", "Rowan", "Sable", "Tundra",
    "Umber", "Vesper", "Willow", "Xenon", "Yarrow", "Zephyr", "Atlas", "Beacon", "Cobalt", "Drift",
)
"""Words for system names (``Cobalt Ledger 17``)."""


def _build_pool(n: int = 4096) -> tuple[str, ...]:
    rng = random.Random(20261004)
    pool = []
    for _ in range(n):
        opener = rng.choice(_OPENERS)
        subject = rng.choice(_SUBJECTS)
        body = f"{opener}{subject}" if opener else subject[0].upper() + subject[1:]
        parts = [f"{body} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_TAILS)}"]
        if rng.random() < 0.45:
            parts.append(f", and {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}")
        sentence = "".join(parts) + "."
        if rng.random() < 0.2:
            sentence += " " + rng.choice(_CLOSERS)
        pool.append(sentence)
    return tuple(pool)


SENTENCES: tuple[str, ...] = _build_pool()
"""4,096 filler sentences (mean about 17 words, 110 characters)."""


def sentences(rng: random.Random, k: int) -> str:
    """``k`` filler sentences joined by spaces."""
    return " ".join(rng.choices(SENTENCES, k=k))


def label(rng: random.Random, words: int = 3) -> str:
    """A short capitalised label such as ``Carried session notes`` (no punctuation)."""
    picked = rng.sample(LABEL_WORDS, words)
    text = " ".join(picked)
    return text[0].upper() + text[1:]
