"""``statetrack bench --peers``: the agreement gate (with fake peers, no extra needed), the message naming the
extra when a peer is missing, and, when the extra [peers] is installed, a tiny real run. No timing is asserted."""

import builtins

import pytest
import torch

from statetrack.tools import peers
from statetrack.models.ops import diagonal_recurrence, diagonal_recurrence_sequential


def _inputs(size, T, gen):
    a = 2 * torch.rand(2, T, 3, generator=gen) - 1  # (B, T, S) decays in [−1, 1]
    b = torch.randn(2, T, 3, generator=gen)  # (B, T, S)
    return a, b


def fake_pair(peer):
    return peers.PeerPair("fake", lambda a, b: diagonal_recurrence(a, b)[0], peer, _inputs, "ours", "fake peer")


def test_agreeing_fake_peer_is_timed():
    pair = fake_pair(lambda a, b: diagonal_recurrence_sequential(a, b)[0])  # same function, other code
    res = peers.run(lengths=(8,), scale="tiny", repeat=1, pairs=[pair])
    (row,) = res["peers"]
    assert row["agreement_max_rel_err"] < 1e-6
    assert row["fwd_ours_min_ms"] > 0 and row["fwd_bwd_peer_median_ms"] > 0 and row["fwd_bwd_ratio_min"] > 0
    assert "fake" in peers.format_table(res)


@pytest.mark.parametrize("peer, what", [
    pytest.param(lambda a, b: diagonal_recurrence_sequential(a, b)[0] * 1.01, "disagree on", id="scaled-output"),
    pytest.param(lambda a, b: diagonal_recurrence_sequential(a.detach(), b)[0], "disagree on grad_input0", id="no-grad-through-a"),
    pytest.param(lambda a, b: diagonal_recurrence_sequential(a, b)[0][:, :-1], "shapes differ", id="wrong-shape"),
])
def test_disagreeing_fake_peer_stops_before_timing(peer, what):
    with pytest.raises(peers.PeerDisagreement, match=f"fake.*{what}"):
        peers.run(lengths=(8,), scale="tiny", repeat=1, pairs=[fake_pair(peer)])


def test_missing_peer_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def no_mambapy(name, *args, **kwargs):
        if name.startswith("mambapy"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_mambapy)
    with pytest.raises(peers.PeersMissing, match=r"extra \[peers\].*mambapy.*pip install -e '\.\[peers\]'"):
        peers.peer_pairs()


def test_unknown_comparison_is_named():
    with pytest.raises(ValueError, match=r"unknown peer comparisons \['nope'\]; allowed: fake"):
        peers.run(lengths=(8,), scale="tiny", pairs=[fake_pair(lambda a, b: a)], names=["nope"])


def test_real_peers_agree_at_tiny_size():
    pytest.importorskip("mambapy", reason="extra [peers] not installed")
    pytest.importorskip("einops", reason="extra [peers] not installed")
    try:
        pairs = peers.peer_pairs()
    except peers.PeersMissing as e:
        pytest.skip(str(e))
    res = peers.run(lengths=(32,), scale="tiny", repeat=1, pairs=pairs)
    assert {r["pair"] for r in res["peers"]} == {p.name for p in pairs}
    assert all(r["agreement_max_rel_err"] < peers.AGREE_TOL for r in res["peers"])
