"""tendyn.tree: YAML/URDF models, RNEA / CRBA / ABA and the block-matrix equations, compared with the CLI."""
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tendyn

tree = getattr(tendyn, "tree", None)
if tree is None:
    pytest.skip("built without TENDYN_WITH_TREE", allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
CLI = Path(tendyn.__file__).resolve().parents[2] / "tendyn"


def random_qv(model, seed):
    rng = np.random.default_rng(seed)
    q = model.random_configuration(seed)
    return q, rng.standard_normal(model.nv), rng.standard_normal(model.nv)


@pytest.mark.parametrize("name", ["double_pendulum.yaml", "arm6.yaml", "biped.yaml", "biped.urdf"])
def test_rnea_equals_crba_plus_bias_and_aba_inverts(name):
    for mode in [tree.BaseMode.AsWritten, tree.BaseMode.Free]:
        model = tree.load_model(str(REPO / "models/tree" / name), mode)
        data = tree.Data(model)
        q, v, a = random_qv(model, 7)
        tau = tree.rnea(model, data, q, v, a)
        M = tree.crba(model, data, q)
        b = tree.nonlinear_effects(model, data, q, v)
        np.testing.assert_allclose(M, M.T, atol=1e-12)
        np.testing.assert_allclose(tau, M @ a + b, atol=1e-9 * max(1.0, np.abs(tau).max()))
        np.testing.assert_allclose(tree.aba(model, data, q, v, tau), a, atol=1e-8)
        assert tree.kinetic_energy(model, data, q, v) == pytest.approx(0.5 * v @ M @ v, rel=1e-10)


def test_block_matrix_equations_match_recursive():
    model = tree.load_model(str(REPO / "models/tree/arm6.yaml"))
    data, bd = tree.Data(model), tree.BlockData(model)
    q, v, a = random_qv(model, 3)
    A, b = tree.block_eom(model, bd, q, v)
    np.testing.assert_allclose(A, tree.crba(model, data, q), atol=1e-10)
    np.testing.assert_allclose(b, tree.nonlinear_effects(model, data, q, v), atol=1e-10)
    tau = tree.block_inverse_dynamics(model, bd, q, v, a)
    np.testing.assert_allclose(tau, tree.rnea(model, data, q, v, a), atol=1e-10)
    np.testing.assert_allclose(tree.block_forward_dynamics(model, bd, q, v, tau), a, atol=1e-8)


def test_matches_cli():
    if not CLI.exists():
        pytest.skip("CLI not built")
    out = subprocess.run([str(CLI), "tree", "inverse", str(REPO / "models/tree/double_pendulum.yaml"),
                          "--q", "0.3,-0.5", "--v", "0.1,0.2", "--a", "1,2", "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    e = json.loads(out)
    model = tree.load_model_yaml(str(REPO / "models/tree/double_pendulum.yaml"))
    data = tree.Data(model)
    q, v, a = np.array([0.3, -0.5]), np.array([0.1, 0.2]), np.array([1.0, 2.0])
    np.testing.assert_allclose(tree.rnea(model, data, q, v, a), e["tau"], rtol=1e-14)
    np.testing.assert_allclose(tree.crba(model, data, q), e["M"], rtol=1e-14)
    np.testing.assert_allclose(tree.nonlinear_effects(model, data, q, v), e["b"], rtol=1e-14)


def test_urdf_round_trip_and_errors():
    model = tree.load_model(str(REPO / "models/tree/arm6.yaml"))  # fixed base: same coordinates after URDF
    again = tree.urdf_from_string(tree.to_urdf(model), "arm6.urdf")
    assert again.nv == model.nv and again.nq == model.nq
    assert again.total_mass() == pytest.approx(model.total_mass(), rel=1e-12)
    q, v, a = random_qv(model, 5)
    np.testing.assert_allclose(tree.rnea(again, tree.Data(again), q, v, a), tree.rnea(model, tree.Data(model), q, v, a),
                               rtol=1e-9, atol=1e-9)
    with pytest.raises(tendyn.Error) as e:
        tree.model_from_yaml_string("links: 3\n", "bad.yaml")
    assert "bad.yaml" in str(e.value)
    with pytest.raises(tendyn.Error):
        tree.rnea(model, tree.Data(model), np.zeros(model.nq + 1), np.zeros(model.nv), np.zeros(model.nv))
