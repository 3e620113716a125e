"""What a statement's number measures, in words with its unit, for a reader who sees the number alone (the
scoreboard's deciding number): each rule metric the claims use (``Statement.rule.metric``).

Used in: ``statetrack.site.scoreboard.deciding_number``; tests/test_scoreboard_markdown.py checks that every metric a
claim's statements use has words here.
"""

from __future__ import annotations

#: rule metric → what it measures (unit in the words; accuracies are fractions, normalized ones 0 = chance)
METRIC_WORDS: dict[str, str] = {
    "ood_normalized": "normalized accuracy at the test lengths",
    "acc_at_max_len": "accuracy at the longest test length",
    "at_500": "normalized accuracy at length 500",
    "mean_seq_acc": "mean sequence accuracy",
    "seq_acc_200": "sequence accuracy at length 200",
    "seq_acc_2t": "sequence accuracy at twice the training length",
    "seq_acc_30": "sequence accuracy at length 30",
    "seq_acc_at_max_len": "sequence accuracy at the longest test length",
    "seq_acc_gen": "sequence accuracy at the generalisation length",
    "loss_rise": "rise of the training loss, nats per byte",
    "val_loss": "validation loss, nats per byte",
    "test_loss_beyond": "test loss beyond the training context, nats per byte",
    "flip_score": "distance of the flip direction's eigenvalues from −1 and +1",
    "drift": "mean angle error, in units of 2π/m",
    "generator": "token 1 generates the group (1 yes, 0 no)",
}


def metric_words(metric: str | None, comparison: bool = False) -> str:
    """The words for ``metric`` ("" for none or an unknown one); a comparison's number is a difference of it."""
    words = METRIC_WORDS.get(metric or "", "")
    return f"difference in {words}" if words and comparison else words
