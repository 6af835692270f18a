#!/usr/bin/env python3
"""Writes the MJCF test robots of this folder (run from anywhere; the files are committed).

three_bar_global.xml  3-bar prism in coordinate="global" (MuJoCo 2.x): capsule tubes, sphere
                      end-caps, box motor housings off the axis, cable sites off the axis.
three_bar_local.xml   the same robot in local coordinates (MuJoCo 3 refuses coordinate="global"):
                      every position relative to its body, the same numbers otherwise; both
                      MuJoCo 2.2.2 and 3.x load it.
six_bar.xml           SUPERball-like expanded octahedron: 6 rods, 24 tendons, local frames.
defaults_include.xml  3-bar with nested <default> classes, childclass, welded end-cap bodies, an
                      explicit <inertial>, and an <include> (defaults_include_tendons.xml).
three_bar_actuated.xml three_bar_local.xml with tendon actuators of every supported kind (position,
                      motor with gear and a ctrl range that clamps, general with an affine bias and a
                      force range that clamps, velocity, general with a filter and with an
                      integrator) and their commands and activations in the keyframe.
All: zero gravity, contacts disabled, a keyframe with a velocity kick.
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def f(*v):
    return " ".join(f"{x:.12g}" for x in v)


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def add(a, b):
    return [a[i] + b[i] for i in range(3)]


def mul(a, s):
    return [x * s for x in a]


def norm(a):
    return math.sqrt(sum(x * x for x in a))


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def prism(R=0.25, H=0.4, twist=math.radians(150)):
    bot = [[R * math.cos(2 * math.pi * i / 3), R * math.sin(2 * math.pi * i / 3), 0.5] for i in range(3)]
    top = [[R * math.cos(2 * math.pi * i / 3 + twist), R * math.sin(2 * math.pi * i / 3 + twist), 0.5 + H] for i in range(3)]
    return bot, top


def three_bar_global(local=False):
    """coordinate="global" (MuJoCo 2.x); local=True: the same robot with positions relative to
    each body (the bodies are not rotated, so only positions change)."""
    bot, top = prism()
    r_cap = 0.03
    head = (['<mujoco model="three_bar_local">',
             '  <!-- three_bar_global.xml in local coordinates: positions relative to each body -->',
             '  <compiler angle="radian" inertiafromgeom="true"/>'] if local else
            ['<mujoco model="three_bar_global">',
             '  <!-- MuJoCo 2.x style: every position and orientation in world coordinates -->',
             '  <compiler coordinate="global" angle="radian" inertiafromgeom="true"/>'])
    out = head + [
           '  <option timestep="0.0001" integrator="RK4" gravity="0 0 0">',
           '    <flag contact="disable"/>',
           '  </option>',
           '  <worldbody>',
           '    <light pos="0 0 3"/>']
    for i in range(3):
        a, b = bot[i], top[i]
        u = mul(sub(b, a), 1 / norm(sub(b, a)))
        side = cross(u, [0, 0, 1])
        side = mul(side, 1 / norm(side))
        mid = mul(add(a, b), 0.5)
        # motor housing: a box 6 cm off the axis, near end 0, turned about the rod axis
        hb = add(add(a, mul(u, 0.12)), mul(side, 0.06))
        out.append(f'    <body name="bar{i}" pos="{f(*mid)}">')
        if local:  # positions relative to the body (its frame is not rotated)
            a, b, hb = sub(a, mid), sub(b, mid), sub(hb, mid)
        out.append('      <freejoint/>')
        out.append(f'      <geom name="tube{i}" type="capsule" fromto="{f(*a, *b)}" size="0.01" density="2700"/>')
        out.append(f'      <geom name="cap{i}a" type="sphere" pos="{f(*a)}" size="{r_cap}" mass="0.05"/>')
        out.append(f'      <geom name="cap{i}b" type="sphere" pos="{f(*b)}" size="{r_cap}" mass="0.05"/>')
        out.append(f'      <geom name="motor{i}" type="box" pos="{f(*hb)}" size="0.02 0.015 0.03" zaxis="{f(*u)}" mass="0.12"/>')
        out.append(f'      <site name="b{i}" pos="{f(*a)}"/>')
        out.append(f'      <site name="t{i}" pos="{f(*b)}"/>')
        # cable attachments on the end-cap surfaces, off the axis
        out.append(f'      <site name="b{i}s" pos="{f(*add(a, mul(side, r_cap)))}"/>')
        out.append(f'      <site name="t{i}s" pos="{f(*sub(b, mul(side, r_cap)))}"/>')
        out.append('    </body>')
    out.append('  </worldbody>')
    out.append('  <tendon>')
    pairs = [(f"b{i}s", f"b{(i + 1) % 3}s") for i in range(3)] + [(f"t{i}s", f"t{(i + 1) % 3}s") for i in range(3)] + \
            [(f"b{i}", f"t{(i + 1) % 3}") for i in range(3)]
    for k, (p, q) in enumerate(pairs):
        out.append(f'    <spatial name="c{k}" stiffness="60" damping="0.5" springlength="{0.3 if k < 6 else 0.35}">')
        out.append(f'      <site site="{p}"/>')
        out.append(f'      <site site="{q}"/>')
        out.append('    </spatial>')
    out.append('  </tendon>')
    qpos, qvel = [], []
    for i in range(3):
        mid = mul(add(bot[i], top[i]), 0.5)
        qpos += mid + [1, 0, 0, 0]
        qvel += [0.1 * (i - 1), 0.05, -0.08 * i, 0.5, -0.3 * i, 0.2]
    out.append('  <keyframe>')
    out.append(f'    <key name="kick" qpos="{f(*qpos)}" qvel="{f(*qvel)}"/>')
    out.append('  </keyframe>')
    out.append('</mujoco>')
    return "\n".join(out) + "\n"


def six_bar(L=0.8, r=0.012):
    a, b = L / 4, L / 2
    rods = [((0, a, -b), (0, a, b)), ((0, -a, -b), (0, -a, b)),
            ((-b, 0, a), (b, 0, a)), ((-b, 0, -a), (b, 0, -a)),
            ((a, -b, 0), (a, b, 0)), ((-a, -b, 0), (-a, b, 0))]
    z0 = 1.0
    nodes = []
    for j, (p, q) in enumerate(rods):
        nodes.append((f"r{j}e0", j, [p[0], p[1], p[2] + z0]))
        nodes.append((f"r{j}e1", j, [q[0], q[1], q[2] + z0]))
    # each node joins the 4 nearest nodes of the four rods not parallel to its own (j // 2 differs)
    d_min = min(norm(sub(x[2], y[2])) for x in nodes for y in nodes if x[1] // 2 != y[1] // 2)
    edges = [(x[0], y[0], norm(sub(x[2], y[2]))) for i, x in enumerate(nodes) for y in nodes[i + 1:]
             if x[1] // 2 != y[1] // 2 and norm(sub(x[2], y[2])) < d_min * (1 + 1e-9)]
    assert len(edges) == 24, len(edges)
    out = ['<mujoco model="six_bar">',
           '  <compiler angle="degree"/>',
           '  <option timestep="0.0001" integrator="RK4" gravity="0 0 0">',
           '    <flag contact="disable"/>',
           '  </option>',
           '  <worldbody>']
    for j, (p, q) in enumerate(rods):
        c = [(p[i] + q[i]) / 2 for i in range(3)]
        c[2] += z0
        u = mul(sub(q, p), 1 / norm(sub(q, p)))
        out.append(f'    <body name="rod{j}" pos="{f(*c)}" zaxis="{f(*u)}">')
        out.append('      <joint type="free"/>')
        out.append(f'      <geom type="capsule" size="{r} {L / 2}" density="1500"/>')
        out.append(f'      <geom type="cylinder" pos="0 0 {-L / 2 + 0.05}" size="0.025 0.02" mass="0.2"/>')
        out.append(f'      <site name="r{j}e0" pos="0 0 {-L / 2}"/>')
        out.append(f'      <site name="r{j}e1" pos="0 0 {L / 2}"/>')
        out.append('    </body>')
    out.append('  </worldbody>')
    out.append('  <tendon>')
    for k, (p, q, d) in enumerate(edges):
        out.append(f'    <spatial name="s{k}" stiffness="200" damping="1" springlength="{0.9 * d:.12g}">')
        out.append(f'      <site site="{p}"/><site site="{q}"/>')
        out.append('    </spatial>')
    out.append('  </tendon>')
    qvel = []
    for j in range(6):
        qvel += [0.05 * math.cos(j), 0.05 * math.sin(j), 0.02 * j - 0.05, 0.3 * math.sin(2 * j), 0.2, -0.4 * math.cos(j)]
    out.append('  <keyframe>')
    out.append(f'    <key name="kick" qvel="{f(*qvel)}"/>')
    out.append('  </keyframe>')
    out.append('</mujoco>')
    return "\n".join(out) + "\n"


def defaults_include():
    bot, top = prism(R=0.2, H=0.35, twist=math.radians(150))
    out = ['<mujoco model="defaults_include">',
           '  <compiler angle="degree" eulerseq="zyx"/>',
           '  <option timestep="0.0001" integrator="RK4" gravity="0 0 0">',
           '    <flag contact="disable"/>',
           '  </option>',
           '  <default>',
           '    <geom density="1200" rgba="0.7 0.7 0.7 1"/>',
           '    <site size="0.005"/>',
           '    <default class="bar">',
           '      <geom type="capsule" size="0.012"/>',
           '      <default class="cap">',
           '        <geom type="sphere" size="0.025" density="800"/>',
           '      </default>',
           '    </default>',
           '    <default class="cable">',
           '      <tendon stiffness="80" damping="0.4"/>',
           '    </default>',
           '  </default>',
           '  <worldbody>']
    for i in range(3):
        a, b = bot[i], top[i]
        L = norm(sub(b, a))
        u = mul(sub(b, a), 1 / L)
        mid = mul(add(a, b), 0.5)
        out.append(f'    <body name="strut{i}" pos="{f(*mid)}" zaxis="{f(*u)}" childclass="bar">')
        out.append('      <freejoint/>')
        out.append(f'      <geom name="strut{i}_tube" fromto="0 0 {-L / 2} 0 0 {L / 2}"/>')
        out.append(f'      <geom type="ellipsoid" size="0.03 0.02 0.015" pos="0.02 0 0.05" euler="10 20 30" mass="0.03"/>')
        # welded end-cap bodies: a sphere each, one with an explicit inertial
        out.append(f'      <body name="strut{i}_cap0" pos="0 0 {-L / 2}">')
        out.append('        <geom class="cap"/>')
        out.append('        <site name="n%d0" pos="0 0 0"/>' % i)
        out.append('        <site name="n%d0x" pos="0.025 0 0"/>' % i)
        out.append('      </body>')
        out.append(f'      <body name="strut{i}_cap1" pos="0 0 {L / 2}" euler="0 0 45">')
        out.append('        <inertial pos="0 0 0.005" mass="0.08" diaginertia="2e-5 3e-5 4e-5"/>')
        out.append('        <geom class="cap" mass="0"/>')
        out.append('        <site name="n%d1" pos="0 0 0"/>' % i)
        out.append('        <site name="n%d1x" pos="0 0.025 0"/>' % i)
        out.append('      </body>')
        out.append('    </body>')
    out.append('  </worldbody>')
    out.append('  <include file="defaults_include_tendons.xml"/>')
    qvel = []
    for i in range(3):
        qvel += [0.02 * i, -0.04, 0.03, 0.2 * (i - 1), 0.4, -0.1]
    out.append('  <keyframe>')
    out.append(f'    <key name="kick" qvel="{f(*qvel)}"/>')
    out.append('  </keyframe>')
    out.append('</mujoco>')
    tendons = ['<mujoco>', '  <tendon>']
    pairs = [(f"n{i}0x", f"n{(i + 1) % 3}0x") for i in range(3)] + [(f"n{i}1x", f"n{(i + 1) % 3}1x") for i in range(3)] + \
            [(f"n{i}0", f"n{(i + 1) % 3}1") for i in range(3)]
    for k, (p, q) in enumerate(pairs):
        tendons.append(f'    <spatial name="k{k}" class="cable" springlength="{0.25 if k < 6 else 0.3}">')
        tendons.append(f'      <site site="{p}"/><site site="{q}"/>')
        tendons.append('    </spatial>')
    tendons += ['  </tendon>', '</mujoco>']
    return "\n".join(out) + "\n", "\n".join(tendons) + "\n"


def three_bar_actuated():
    """three_bar_local.xml plus four tendon actuators and the keyframe's ctrl (MuJoCo 2.2.2 and 3.x)."""
    text = three_bar_global(local=True).replace('model="three_bar_local"', 'model="three_bar_actuated"')
    text = text.replace("<!-- three_bar_global.xml in local coordinates: positions relative to each body -->",
                        "<!-- three_bar_local.xml with tendon actuators (make_models.py) -->")
    actuators = "\n".join([
        '  <actuator>',
        '    <position name="servo" tendon="c6" kp="40"/>',
        '    <motor name="motor" tendon="c7" gear="2" ctrllimited="true" ctrlrange="-1 1"/>',
        '    <general name="affine" tendon="c8" gainprm="100" biastype="affine" biasprm="0 -100 -0.8" '
        'forcelimited="true" forcerange="-4 4"/>',
        '    <velocity name="speed" tendon="c0" kv="0.3"/>',
        '    <general name="filtered" tendon="c1" dyntype="filter" dynprm="0.05" gainprm="50" biastype="affine" '
        'biasprm="0 -50 -0.2"/>',
        '    <general name="integrated" tendon="c2" dyntype="integrator" gainprm="30" biastype="affine" biasprm="0 -30 0"/>',
        '  </actuator>'])
    text = text.replace("  <keyframe>", actuators + "\n  <keyframe>")
    # servo: target 0.3 m; motor: -2.5 clamped to -1 (gear 2: 2 N pulling); affine: target 0.33 m,
    # its force clamped at -4 N; speed: 0.1 m/s; filtered: a servo whose target (its activation)
    # moves from 0.31 m towards 0.27 m with a 50 ms lag; integrated: a target moving from 0.3 m at
    # ctrl = -0.02 m/s
    text = text.replace('"/>\n  </keyframe>', '" ctrl="0.3 -2.5 0.33 0.1 0.27 -0.02" act="0.31 0.3"/>\n  </keyframe>')
    return text


if __name__ == "__main__":
    with open(os.path.join(HERE, "three_bar_global.xml"), "w") as fh:
        fh.write(three_bar_global())
    with open(os.path.join(HERE, "three_bar_local.xml"), "w") as fh:
        fh.write(three_bar_global(local=True))
    with open(os.path.join(HERE, "six_bar.xml"), "w") as fh:
        fh.write(six_bar())
    main, inc = defaults_include()
    with open(os.path.join(HERE, "defaults_include.xml"), "w") as fh:
        fh.write(main)
    with open(os.path.join(HERE, "defaults_include_tendons.xml"), "w") as fh:
        fh.write(inc)
    with open(os.path.join(HERE, "three_bar_actuated.xml"), "w") as fh:
        fh.write(three_bar_actuated())
