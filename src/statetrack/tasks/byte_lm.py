"""Byte-level language modelling on corpora every machine has: next-byte prediction over 256 bytes + specials.

Worked example (a corpus of one document ``b"def f():"``; ids 0..255 are the bytes, 256 is the end of a
document, 257 is padding). A training window of length 4 starting at byte 2::

    window   f    ' '  f    (    )          bytes 2..6 of the stream (``b"f f()"``)
    inputs   102  32   102  40              the first 4
    targets  32   102  40   41              the next byte after each input: the answer at every position

The stream is every training document followed by the end-of-document id 256, concatenated; a window
may cross into the next document, as in any LM data loader. The head has K = 257 classes (the 256
bytes and end-of-document); padding is never a target.

Corpora (``task.corpus``), all read from the Python installation that runs this code, so nothing is
downloaded:

| corpus          | what                                                                                | document  |
|-----------------|-------------------------------------------------------------------------------------|-----------|
| ``stdlib-code`` | every ``.py`` file of the standard library (``sysconfig`` "stdlib" folder), without | one file  |
|                 | test suites (``test/``, ``tests/``, ``idle_test/``), ``site-packages``, generated   |           |
|                 | tables (``encodings/``, ``_sysconfigdata*``, ``config-*``) and ``pydoc_data/``      |           |
| ``stdlib-docs`` | the Python reference documentation shipped for ``help()`` (``pydoc_data.topics``):  | one topic |
|                 | English prose with a few code examples                                              |           |
| a path          | every non-hidden regular file under that directory (your own text or code)          | one file  |

Split by document, never by byte, so no file is in two splits: documents are ranked by the SHA-256 of
their name (path relative to the corpus root, or the topic name); the first ``max(1, round(0.1 n))``
are the test split, the next as many the validation split, the rest training. The rule depends on
names only, so it is the same on every machine that has the same files; the files themselves depend
on the Python version, which is why every record stores the corpus's size and fingerprint.

Evaluation (``evaluate``, called by ``statetrack.runs.execute`` for this task instead of accuracy by length):

- *validation perplexity*: exp of the mean next-byte cross-entropy (nats) over ``eval.num_seqs``
  validation windows of the training context ``train.max_len``; *bits per byte* = loss / ln 2;
- *perplexity by position*: the same loss at each position of ``eval.num_seqs`` test windows of
  ``eval.max_len`` bytes (longer than the training context), averaged in bins of ``eval.stride``;
  *within* = positions ctx/2+1..ctx, *beyond* = positions ctx+1..``eval.max_len``, and the
  extrapolation ratio = ppl beyond / ppl within (< 1: the extra context helps; > 1: the model degrades
  past its training context).

Evaluation windows lie inside one document when some document of the split is long enough (the
question "does more context help" needs context that belongs to the same text); windows are drawn
with probability proportional to the positions a document offers, from ``eval.seed``, so every run
sees the same test bytes.

Implements the data side of NE §5.3 (NE App. E.3) in miniature: FineWeb and CodeParrot are
replaced by corpora that need no download.

Used in: ne7.
"""

from __future__ import annotations

import functools
import hashlib
import math
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import torch
from torch import nn
from torch.nn import functional as F

from statetrack.config import ConfigError, EvalConfig, TaskConfig, TrainConfig
from statetrack.tasks import register
from statetrack.tasks.base import Task

BUILTIN_CORPORA = ("stdlib-code", "stdlib-docs")
SPLITS = ("train", "val", "test")
EOD = 256  # end of document: a target class and an input token
PAD = 257  # padding: an input token only
SPLIT_FRACTION = 0.1  # of the documents, for each of test and validation
# Folders (any path component) and file-name prefixes left out of ``stdlib-code``: test suites,
# installed packages, generated tables and the documentation corpus.
EXCLUDED_DIRS = frozenset({"site-packages", "dist-packages", "test", "tests", "idle_test", "__pycache__", "encodings",
                           "pydoc_data"})
EXCLUDED_PREFIXES = ("_sysconfigdata", "config-")


@dataclass(frozen=True)
class ByteLMConfig(TaskConfig):
    """Next-byte prediction (|Σ| = 258 input ids, K = 257 classes, chance 1/257).

    ``corpus``: "stdlib-code", "stdlib-docs" or the path of a directory of your own files.
    """

    name: ClassVar[str] = "byte_lm"
    corpus: str = "stdlib-code"

    def check(self) -> None:
        if self.supervision != "every":
            raise ConfigError(f"task.byte_lm: supervision={self.supervision!r} is not allowed: a language model "
                              "predicts every next byte; allowed: 'every'")
        if self.corpus in BUILTIN_CORPORA:
            return
        path = Path(self.corpus).expanduser()
        if not path.is_dir():
            raise ConfigError(f"task.byte_lm: corpus={self.corpus!r} is not allowed: it is neither a built-in corpus "
                              f"nor an existing directory; allowed: {', '.join(BUILTIN_CORPORA)} or the path of a "
                              "directory of text files")


# ----------------------------------------------------------------------------- corpora


def stdlib_root() -> Path:
    """The standard library folder of the running Python (``sysconfig.get_paths()["stdlib"]``)."""
    return Path(sysconfig.get_paths()["stdlib"])


def _code_documents(root: Path) -> list[tuple[str, bytes]]:
    docs = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root)
        if any(part in EXCLUDED_DIRS for part in rel.parts[:-1]) or \
                any(part.startswith(EXCLUDED_PREFIXES) for part in rel.parts):
            continue
        if p.is_file():
            docs.append((rel.as_posix(), p.read_bytes()))
    return docs


def _docs_documents() -> list[tuple[str, bytes]]:
    from pydoc_data.topics import topics

    return [(name, text.encode("utf-8")) for name, text in sorted(topics.items())]


def _dir_documents(root: Path) -> list[tuple[str, bytes]]:
    docs = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            docs.append((rel.as_posix(), p.read_bytes()))
    return docs


def split_of(names: list[str]) -> dict[str, str]:
    """Each document name → "train", "val" or "test" (see the module docstring); needs at least 3 names."""
    if len(set(names)) != len(names):
        raise ValueError("document names must be distinct")
    ranked = sorted(names, key=lambda n: hashlib.sha256(n.encode("utf-8")).hexdigest())
    k = max(1, round(SPLIT_FRACTION * len(ranked)))
    return {n: ("test" if i < k else "val" if i < 2 * k else "train") for i, n in enumerate(ranked)}


@dataclass(frozen=True)
class Corpus:
    """A corpus's documents by split and its figures (files, bytes, fingerprint)."""

    documents: dict[str, list[tuple[str, bytes]]]  # split → [(name, bytes)], in name order
    fingerprint: str  # SHA-256 (12 hex) over every (name, bytes), in name order

    def stream(self, split: str) -> torch.Tensor:
        """The split's documents, each followed by ``EOD``, as one (N,) int64 tensor."""
        parts = []
        for _, data in self.documents[split]:
            parts.append(torch.frombuffer(bytearray(data), dtype=torch.uint8).long() if data else torch.zeros(0,
                                                                                                          dtype=torch.long))
            parts.append(torch.tensor([EOD]))
        return torch.cat(parts)

    def figures(self) -> dict[str, object]:
        return {"fingerprint": self.fingerprint,
                "files": {s: len(self.documents[s]) for s in SPLITS},
                "bytes": {s: sum(len(d) for _, d in self.documents[s]) for s in SPLITS}}


@functools.lru_cache(maxsize=8)
def load_corpus(corpus: str) -> Corpus:
    """Read and split a corpus (cached per process). Bad input raises ``ConfigError`` naming it."""
    if corpus == "stdlib-code":
        docs = _code_documents(stdlib_root())
    elif corpus == "stdlib-docs":
        docs = _docs_documents()
    else:
        path = Path(corpus).expanduser()
        if not path.is_dir():
            raise ConfigError(f"task.byte_lm: corpus={corpus!r} is neither a built-in corpus nor an existing "
                              f"directory; allowed: {', '.join(BUILTIN_CORPORA)} or a directory")
        docs = _dir_documents(path)
    docs = [(n, d) for n, d in docs if d]
    if len(docs) < 3:
        raise ConfigError(f"task.byte_lm: corpus={corpus!r} has {len(docs)} non-empty file(s); a split by file into "
                          "train, validation and test needs at least 3")
    where = split_of([n for n, _ in docs])
    h = hashlib.sha256()
    for n, d in docs:
        h.update(n.encode("utf-8") + b"\0" + hashlib.sha256(d).digest())
    by_split = {s: [(n, d) for n, d in docs if where[n] == s] for s in SPLITS}
    return Corpus(by_split, h.hexdigest()[:12])


# ----------------------------------------------------------------------------- the task


@register
class ByteLM(Task):
    Config = ByteLMConfig
    cfg: ByteLMConfig

    def __init__(self, cfg: ByteLMConfig):
        super().__init__(cfg)
        self.corpus = load_corpus(cfg.corpus)
        self._streams: dict[str, torch.Tensor] = {}

    @property
    def vocab_size(self) -> int:
        return 258  # bytes, EOD, PAD

    @property
    def num_classes(self) -> int:
        return 257  # bytes and EOD

    def stream(self, split: str) -> torch.Tensor:
        if split not in self._streams:
            self._streams[split] = self.corpus.stream(split)
        return self._streams[split]

    def _generate(self, gen, batch, length):
        data = self.stream("train")
        if length + 1 > data.numel():
            raise ConfigError(f"train length {length} is too long for corpus {self.cfg.corpus!r}: its training "
                              f"split holds {data.numel()} ids")
        start = torch.randint(0, data.numel() - length, (batch,), generator=gen)  # (B,)
        windows = data[start[:, None] + torch.arange(length + 1)]  # (B, T+1)
        return windows[:, :-1], windows[:, 1:]  # (B, T), (B, T)

    def windows(self, split: str, length: int, num: int, seed: int) -> tuple[torch.Tensor, bool]:
        """``num`` evaluation windows of ``length`` + 1 ids from ``split``: (num, length + 1), and whether they
        lie inside single documents (else they are cut from the split's stream)."""
        gen = torch.Generator().manual_seed(seed)
        docs = [d for _, d in self.corpus.documents[split] if len(d) >= length + 1]
        if docs:
            room = torch.tensor([len(d) - length for d in docs], dtype=torch.float64)  # (n,) start positions
            pick = torch.multinomial(room, num, replacement=True, generator=gen)  # (num,)
            out = torch.empty(num, length + 1, dtype=torch.long)
            for i, j in enumerate(pick.tolist()):
                off = int(torch.randint(0, len(docs[j]) - length, (1,), generator=gen))
                out[i] = torch.tensor(list(docs[j][off:off + length + 1]))
            return out, True
        data = self.stream(split)
        if data.numel() < length + 1:
            raise ConfigError(f"eval length {length} is too long for the {split} split of corpus "
                              f"{self.cfg.corpus!r}: it holds {data.numel()} ids")
        start = torch.randint(0, data.numel() - length, (num,), generator=gen)  # (num,)
        return data[start[:, None] + torch.arange(length + 1)], False

    def evaluate(self, model: nn.Module, train: TrainConfig, ev: EvalConfig, device) -> dict:
        """Validation perplexity and bits per byte at the training context, loss by position to ``ev.max_len``."""
        ctx = train.max_len
        val, val_inside = self.windows("val", ctx, ev.num_seqs, ev.seed)
        val_nll, _ = next_byte_nll(model, val, ev.batch_size, device)  # (N, ctx)
        test, test_inside = self.windows("test", ev.max_len, ev.num_seqs, ev.seed + 1)
        nll, correct = next_byte_nll(model, test, ev.batch_size, device)  # (N, T), (N, T)
        loss_at, acc_at = nll.mean(0), correct.float().mean(0)  # (T,), (T,)
        half = ctx // 2
        within = loss_at[half:ctx].mean().item()
        beyond = loss_at[ctx:].mean().item() if ev.max_len > ctx else float("nan")
        val_loss = val_nll.mean().item()
        ends = list(range(ev.stride, ev.max_len + 1, ev.stride))
        if not ends or ends[-1] != ev.max_len:
            ends.append(ev.max_len)
        starts = [0, *ends[:-1]]
        ood_acc = acc_at[ctx:].mean().item() if ev.max_len > ctx else float("nan")
        chance = 1.0 / self.num_classes
        summary = {
            "chance": chance,
            "val_loss": val_loss, "val_ppl": math.exp(val_loss), "val_bpb": val_loss / math.log(2),
            "test_loss_within": within, "test_ppl_within": math.exp(within),
            "test_loss_beyond": beyond, "test_ppl_beyond": math.exp(beyond), "test_bpb_beyond": beyond / math.log(2),
            "extrap_ratio": math.exp(beyond - within),
            "id_acc": acc_at[:ctx].mean().item(), "ood_acc": ood_acc, "ood_normalized": (ood_acc - chance) / (1 - chance),
            "context": ctx, "windows_inside_documents": bool(val_inside and test_inside),
            "corpus": self.corpus.figures(),
        }
        by_length = {"length": ends,
                     "loss": [loss_at[a:b].mean().item() for a, b in zip(starts, ends)],
                     "acc": [acc_at[a:b].mean().item() for a, b in zip(starts, ends)],
                     "seq_acc": None}
        return {"summary": summary, "by_length": by_length}


@torch.no_grad()
def next_byte_nll(model: nn.Module, windows: torch.Tensor, batch_size: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    """Cross-entropy (nats) and correctness of the next byte at every position.

    Args:
        windows: (N, T+1) ids; inputs are ``windows[:, :-1]``, targets ``windows[:, 1:]``.
    Returns:
        nll (N, T) and correct (N, T), on the CPU.
    """
    was_training = model.training
    model.eval()
    nll, correct = [], []
    for chunk in windows.split(batch_size):
        x, y = chunk[:, :-1].to(device), chunk[:, 1:].to(device)  # (b, T), (b, T)
        logits = model(x)  # (b, T, K)
        nll.append(F.cross_entropy(logits.transpose(1, 2), y, reduction="none").cpu())  # (b, T)
        correct.append((logits.argmax(-1) == y).cpu())  # (b, T)
    model.train(was_training)
    return torch.cat(nll), torch.cat(correct)
