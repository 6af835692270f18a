"""Form-finding and the rest state on the ground from Python (tendyn.tensegrity.settle_on_ground)."""
from pathlib import Path

import numpy as np
import pytest

import tendyn
from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]


def test_tower_rests_on_its_bottom_ring():
    m = ts.load_model_file(str(REPO / "models/tower.yaml")).model
    r = ts.settle_on_ground(m, ts.SettleOptions(speed_tolerance_mps=1e-4))
    assert sorted(m.node_ids[i] for i in r.contact_nodes) == ["n10", "n11", "n12"]
    assert r.slack_cables == 0 and r.min_cable_tension_N > 1.0
    assert r.max_residual_N < 1e-8
    reactions = np.array(r.contact_force_W_N)
    # the ground carries the weight: six 0.5 kg rods
    assert reactions[:, 2].sum() == pytest.approx(6 * 0.5 * 9.81, rel=1e-6)
    assert ts.max_residual_on_ground(m, r.state, r.contact_nodes, r.contact_force_W_N) == pytest.approx(r.max_residual_N, abs=1e-12)


def test_settle_errors():
    guess = ts.load_model_file(str(REPO / "models/tower_guess.yaml")).model
    with pytest.raises(tendyn.Error, match="no ground"):
        ts.settle_on_ground(guess)
    eq = ts.find_equilibrium(guess)
    assert eq.converged and eq.slack_cables == 0
    assert ts.max_node_residual(guess, eq.state) < 1e-8
