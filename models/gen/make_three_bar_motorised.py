#!/usr/bin/env python3
"""Writes models/three_bar_motorised.yaml: document 001's 3-bar robot built as a real one.

Starting from the document's standing pose (models/three_bar.yaml, same topology: top triangle
c1..c3, bottom triangle c4..c6, the three long cables c7..c9), it adds what a built robot has
(docs/REAL_ROBOTS.md), with the numbers of a published robot where one gives them:

  [R2S2R] K. Wang, W. R. Johnson III, S. Lu, X. Huang, J. Booth, R. Kramer-Bottiglio, M. Aanjaneya,
          K. Bekris, "Real2Sim2Real Transfer for Control of Cable-driven Robots via a Differentiable
          Physics Engine", arXiv:2209.06261, 2022 (a real 3-bar prism: sphere end-caps, six short
          cables reeled by motors in housings on the rods, three passive long cables). The robot's
          numbers are those of the authors' public simulator configuration,
          github.com/nchen9191/tensegrity_diff_physics_public,
          diff_physics_engine/simulators/configs/3_bar_tensegrity_upscaled_v2.json ("upscaled": lengths
          x10, masses x1000; the unscaled 3_bar_tensegrity.json of the same directory gives the end-cap
          as 0.0175 m and 0.0105 kg, which fixes both factors), and diff_physics_engine/actuation/dc_motor.py.
  [POLOLU] Pololu item 5215, "75:1 Micro Metal Gearmotor HPCB 12V", https://www.pololu.com/product/5215
          (gear 75.81:1; at 12 V: 450 RPM and 80 mA without load, 1.0 kg cm and 0.75 A at stall,
          extrapolated): a gear motor of the size that fits the robot's motor housings.

Numbers no source gives are marked "assumed" with the reason. The geometry is the document's
pose scaled to the robot's rod length; sphere end-caps touch a compliant ground; each cable is tied
on its end-cap's surface, off the rod axis, on the side facing the other end of the cable; a rod is
made of parts (rod, two end-caps, two motors), summed here into mass, centre of mass and inertia
tensor; the six short cables have motorised winches (PID on the reeled-out length) driven toward
the document's sinusoidal targets (eq. 2-66) on c1..c4.
Run: python3 models/gen/make_three_bar_motorised.py
"""
import math, os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# --- the robot [R2S2R] (configuration file values / 10 for lengths, / 1000 for masses) ---
ROD_LENGTH = 0.295       # m, end-cap centre to centre: |end_pts[1] - end_pts[0]| = 2.950 (upscaled) for each rod
CAP_R = 0.0175           # m, sphere end-cap radius: "sphere_radius": 0.175 (upscaled), 0.0175 (3_bar_tensegrity.json)
CAP_M = 0.0105           # kg, each end-cap: "sphere_mass": 10.5 (upscaled), 0.0105 (3_bar_tensegrity.json)
ATTACH_R = 0.0175        # m, cable points on the end-cap surface: |s_0_4 - s0| = 0.0175 in 3_bar_tensegrity.json
ROD_M = 0.0418           # kg, the rod itself: "mass": 41.8 (upscaled)
ROD_R = 0.0016           # m, rod radius: "radius": 0.016 (upscaled); solid (assumed: no inner radius given)
MOTOR_M = 0.0353         # kg, each of the two motors on a rod: "motor_mass": 35.3 (upscaled)
MOTOR_R = 0.0175         # m, motor (housing) outer radius: "motor_radius": 0.175 (upscaled)
MOTOR_LEN = 0.045        # m, motor length along the rod: "motor_length": 0.45 (upscaled)
MOTOR_OFFSET = 0.1025    # m, motor centre from the rod middle, one each way: "motor_offset": 1.025 (upscaled)
SPOOL_R = 0.0035         # m, winch spool radius: "winch_r": 0.035 (upscaled)
FRICTION = 0.92          # ground friction: "friction": 0.9210786 (upscaled_v2), a value the authors fit to the real robot
                         # (training/configs/real_3bar_sys_id_config.json lists it as trainable)
# --- the motor [POLOLU]; tendyn's winch takes motor-side numbers: output values through the gear ---
GEAR = 75.81                                          # gear ratio 75.81:1
RPM_NO_LOAD, STALL_KGCM = 450.0, 1.0                  # output shaft, 12 V
I_NO_LOAD, I_STALL = 0.080, 0.75                      # A, 12 V
NO_LOAD_SPEED = RPM_NO_LOAD * 2 * math.pi / 60 * GEAR     # rad/s at the motor: 3572
STALL_TORQUE = STALL_KGCM * 9.80665e-2 / GEAR             # N m at the motor (gear losses folded in): 1.29e-3
COULOMB = STALL_TORQUE * I_NO_LOAD / I_STALL              # N m: the no-load current's torque (k_t I_0), 1.38e-4
ROTOR_INERTIA = 1.0e-9   # kg m^2, assumed: the data sheet gives none (x10 changes the rolling gait by 5 mm)
VISCOUS = 0.0            # N m s/rad, assumed: the no-load current is taken as all Coulomb friction
# --- assumed (no source gives them for this robot) ---
CABLE_K, CABLE_C = 300.0, 0.5    # N/m, N s/m: document 001's cables (the robot's are elastic; not published)
GROUND_K, GROUND_C = 20000.0, 60.0   # N/m, N s/m: a stiff floor, penetration about 1 mm under the robot's weight
KP, KI, KD = 100.0, 200.0, 0.5   # the position loop's gains (the robot's controller is not published), tuned here
WINCH_CABLES = ("c1", "c2", "c3", "c4", "c5", "c6")  # [R2S2R]: the six short cables are motorised


def read_three_bar():
    import re
    text = open(os.path.join(HERE, "..", "three_bar.yaml")).read()
    nodes = {m.group(1): np.array([float(v) for v in m.group(2).split(",")])
             for m in re.finditer(r"\{id: (n\d), position: \[([^\]]+)\]\}", text)}
    rods = [(m.group(1), m.group(2), m.group(3)) for m in re.finditer(r"id: (rod\d).*nodes: \[(n\d), (n\d)\]", text)]
    cables = [(m.group(1), m.group(2), m.group(3), float(m.group(4)))
              for m in re.finditer(r"\{id: (c\d), nodes: \[(n\d), (n\d)\], stiffness: 300, damping: 0.5, rest_length: ([0-9.]+)\}", text)]
    return nodes, rods, cables


def tube(m, ro, ri, L):  # about its centre, axis z
    it = m * (3 * (ro * ro + ri * ri) + L * L) / 12
    return np.diag([it, it, m * (ro * ro + ri * ri) / 2])


def parts_inertia(parts):
    """parts: (mass, centre (3), inertia about centre (3x3)) -> (mass, com, inertia about com)."""
    M = sum(p[0] for p in parts)
    c = sum(p[0] * p[1] for p in parts) / M
    I = np.zeros((3, 3))
    for m, x, Ic in parts:
        d = x - c
        I += Ic + m * (d.dot(d) * np.eye(3) - np.outer(d, d))
    return M, c, I


def main():
    nodes, rods, cables = read_three_bar()
    # the document's pose scaled to the robot's rod length (the rest lengths scale with the spans below)
    doc_len = np.linalg.norm(nodes[rods[0][2]] - nodes[rods[0][1]])
    nodes = {n: p * (ROD_LENGTH / doc_len) for n, p in nodes.items()}
    rod_of = {}
    for rid, a, b in rods:
        rod_of[a] = (rid, a, b)
        rod_of[b] = (rid, a, b)
    lines = ["# Document 001's 3-bar robot built as a real one with a published robot's numbers (R2S2R 3-bar,",
             "# arXiv:2209.06261; Pololu 75:1 HPCB 12V gear motors): end-caps, off-axis cable points, rods made",
             "# of parts, six motorised winches. Generated by models/gen/make_three_bar_motorised.py (sources there).",
             "tendyn: tensegrity", "name: three-bar-motorised", "gravity: [0, 0, -9.81]", "nodes:"]
    f = lambda v: "[" + ", ".join(f"{x:.12g}" for x in v) + "]"
    # the model's ends sit one end-cap radius higher, so that the caps rest on the ground
    lift = np.array([0, 0, CAP_R])
    for n, p in nodes.items():
        lines.append(f"  - {{id: {n}, position: {f(p + lift)}, radius: {CAP_R}}}")
    attach = {}
    for cid, a, b, rest in cables:
        for me, other in ((a, b), (b, a)):
            rid, e0, e1 = rod_of[me]
            axis = nodes[e1] - nodes[e0]
            axis /= np.linalg.norm(axis)
            d = nodes[other] - nodes[me]
            perp = d - d.dot(axis) * axis
            p = nodes[me] + lift + ATTACH_R * perp / np.linalg.norm(perp)
            name = f"{cid}_{me}"
            attach[(cid, me)] = (name, p)
            lines.append(f"  - {{id: {name}, on: {rid}, position: {f(p)}}}")
    lines.append("rods:")
    for rid, a, b in rods:
        p0, p1 = nodes[a] + lift, nodes[b] + lift
        L = np.linalg.norm(p1 - p0)
        e = (p1 - p0) / L
        side = np.cross(e, [0, 0, 1.0])
        if np.linalg.norm(side) < 1e-6:
            side = np.cross(e, [1.0, 0, 0])
        side /= np.linalg.norm(side)
        mid = 0.5 * (p0 + p1)
        R = np.column_stack([side, np.cross(e, side), e])  # tube axes -> world
        # [R2S2R]: the rod, two sphere end-caps, two motors (hollow cylinders around the rod, one each
        # side of the middle), all on the axis
        motor = R @ tube(MOTOR_M, MOTOR_R, ROD_R, MOTOR_LEN) @ R.T
        parts = [(ROD_M, mid, R @ tube(ROD_M, ROD_R, 0.0, L) @ R.T),
                 (CAP_M, p0, 0.4 * CAP_M * CAP_R ** 2 * np.eye(3)),
                 (CAP_M, p1, 0.4 * CAP_M * CAP_R ** 2 * np.eye(3)),
                 (MOTOR_M, mid - MOTOR_OFFSET * e, motor),
                 (MOTOR_M, mid + MOTOR_OFFSET * e, motor)]
        M, c, I = parts_inertia(parts)
        I[np.abs(I) < 1e-15] = 0.0  # round-off of exact zeros
        rows = ", ".join(f(I[i]) for i in range(3))
        lines.append(f"  - id: {rid}")
        lines.append(f"    mass: {M:.12g}")
        lines.append(f"    length: {L:.12g}")
        lines.append(f"    nodes: [{a}, {b}]")
        lines.append(f"    inertia: {{com: {f(c)}, tensor: [{rows}]}}")
    lines.append("cables:")
    for cid, a, b, rest in cables:
        pa, pb = attach[(cid, a)][1], attach[(cid, b)][1]
        span_old = np.linalg.norm(nodes[b] - nodes[a])
        span_new = np.linalg.norm(pb - pa)
        lines.append(f"  - {{id: {cid}, nodes: [{attach[(cid, a)][0]}, {attach[(cid, b)][0]}], stiffness: {CABLE_K:g}, damping: {CABLE_C:g}, "
                     f"rest_length: {rest * span_new / span_old:.12g}}}")
    sinusoids = ["drives:  # the targets of the winches: document 001 eq. (2-66)"]
    for cid, amp in (("c1", 0.02), ("c2", 0.02), ("c3", -0.01), ("c4", -0.01)):
        sinusoids.append(f"  - {{cable: {cid}, sinusoid: {{a: {amp}, b: 3.14, c: 0, d: 0}}}}")
    tail = ["winches:"]
    for cid in WINCH_CABLES:
        tail.append(f"  - {{cable: {cid}, spool_radius: {SPOOL_R:g}, gear_ratio: {GEAR:g}, stall_torque: {STALL_TORQUE:.6g}, "
                    f"no_load_speed: {NO_LOAD_SPEED:.6g}, rotor_inertia: {ROTOR_INERTIA:g}, coulomb_friction: {COULOMB:.6g}, "
                    f"viscous_friction: {VISCOUS:g}, kp: {KP:g}, ki: {KI:g}, kd: {KD:g}}}")
    tail += ["ground:", "  type: compliant", f"  friction: {FRICTION:g}", f"  stiffness: {GROUND_K:g}", f"  damping: {GROUND_C:g}",
             "simulation:"]
    write("three_bar_motorised.yaml", lines + sinusoids + tail + ["  duration: 10.0", "  dt: 0.0002", "  integrator: rk4",
                                                                  "  output_interval: 0.01"])
    # the rolling gait: the same robot, its six winches' targets from the gait table
    t, u = read_gait(os.path.join(HERE, "..", "three_bar_motorised_roll.csv"))
    head = [lines[0], "# This copy rolls: its winch targets are the gait table three_bar_motorised_roll.csv (docs/REAL_ROBOTS.md).",
            "# Generated by models/gen/make_three_bar_motorised.py from that table; edit the table, not this file."]
    gait = ["drives:  # the winch targets: rest-length offsets [m] of the gait table, linear between its rows"]
    for j, cid in enumerate(WINCH_CABLES):
        rows = ", ".join(f"[{ti:g}, {ui:g}]" for ti, ui in zip(t, u[:, j]))
        gait.append(f"  - {{cable: {cid}, table: [{rows}]}}")
    write("three_bar_motorised_roll.yaml", head + [lines[3], "name: three-bar-motorised-roll"] + lines[5:] + gait + tail +
          [f"  duration: {GAIT_DURATION:g}", "  dt: 0.0002", "  integrator: rk4", "  output_interval: 0.02"])


GAIT_DURATION = 20.0  # s: the gait table's last row and a short rest after it


def read_gait(path):
    """The gait table: rows t_s, then one target offset [m] per winch in WINCH_CABLES' order."""
    rows = [l for l in open(path) if l.strip() and not l.startswith("#")]
    header = [h.strip() for h in rows[0].split(",")]
    want = ["t_s"] + [f"{c}.u_m" for c in WINCH_CABLES]
    if header != want:
        raise SystemExit(f"{path}: header {header}, expected {want}")
    data = np.array([[float(v) for v in r.split(",")] for r in rows[1:]])
    return data[:, 0], data[:, 1:]


def write(name, lines):
    out = os.path.join(HERE, "..", name)
    open(out, "w").write("\n".join(lines) + "\n")
    print("wrote", os.path.normpath(out))

if __name__ == "__main__":
    main()
