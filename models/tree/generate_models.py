#!/usr/bin/env python3
"""Writes the shipped tree models (run from anywhere: python3 models/tree/generate_models.py).

biped.yaml / biped.urdf: the 18-link biped of document 003 (6 fictitious floating-base links,
the trunk being the 6th, + two 6-link legs). The paper gives the structure (Fig. 2-3) but no
dimensions or masses: the numbers below are our choice, documented in docs/TREE.md.
humanoid35.urdf: a simple humanoid, free base (6) + 29 joints = 35 DOF, for benchmarks.
double_pendulum.yaml, arm6.yaml: test models.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def f(x):
    return repr(float(x))


def v3(v):
    return "[" + ", ".join(f(x) for x in v) + "]"


def s3(v):
    return " ".join(f(x) for x in v)


class L:
    def __init__(self, name, parent, jtype, axis, xyz, mass, com, I, rpy=(0, 0, 0)):
        self.name, self.parent, self.jtype, self.axis, self.xyz = name, parent, jtype, axis, xyz
        self.mass, self.com, self.I, self.rpy = mass, com, I, rpy


def yaml_of(name, links, header, reach=None):
    out = [f"# {line}" for line in header] + [f"name: {name}", "gravity: [0.0, 0.0, -9.81]"]
    if reach:
        out.append("reachability:")
        out += ["  - [" + ", ".join(str(x) for x in row) + "]" for row in reach]
    out.append("links:")
    for l in links:
        out.append(f"  - name: {l.name}")
        out.append(f"    parent: {l.parent}")
        j = f"    joint: {{name: {l.name}_joint, type: {l.jtype}"
        if l.jtype not in ("fixed",):
            j += f", axis: {v3(l.axis)}"
        j += f", xyz: {v3(l.xyz)}, rpy: {v3(l.rpy)}}}"
        out.append(j)
        out.append(f"    mass: {f(l.mass)}")
        out.append(f"    com: {v3(l.com)}")
        ixx, iyy, izz = l.I
        out.append(f"    inertia: {{ixx: {f(ixx)}, iyy: {f(iyy)}, izz: {f(izz)}, ixy: 0.0, ixz: 0.0, iyz: 0.0}}")
    return "\n".join(out) + "\n"


def urdf_of(name, links, comment):
    out = ['<?xml version="1.0"?>', f"<!-- {comment} -->", f'<robot name="{name}">', '  <link name="world"/>']
    for l in links:
        ixx, iyy, izz = l.I
        out += [f'  <link name="{l.name}">', "    <inertial>", f'      <origin xyz="{s3(l.com)}" rpy="0 0 0"/>',
                f'      <mass value="{f(l.mass)}"/>',
                f'      <inertia ixx="{f(ixx)}" iyy="{f(iyy)}" izz="{f(izz)}" ixy="0" ixz="0" iyz="0"/>',
                "    </inertial>", "  </link>"]
    for l in links:
        t = {"floating6": "floating", "free": "floating"}.get(l.jtype, l.jtype)
        out += [f'  <joint name="{l.name}_joint" type="{t}">', f'    <parent link="{l.parent}"/>',
                f'    <child link="{l.name}"/>', f'    <origin xyz="{s3(l.xyz)}" rpy="{s3(l.rpy)}"/>']
        if t in ("revolute", "prismatic", "continuous"):
            out.append(f'    <axis xyz="{s3(l.axis)}"/>')
            out.append('    <limit effort="300" velocity="20" lower="-3.14" upper="3.14"/>')
        out.append("  </joint>")
    out.append("</robot>")
    return "\n".join(out) + "\n"


X, Y, Z = (1, 0, 0), (0, 1, 0), (0, 0, 1)


def leg(side, sy, parent, hip_xyz):
    p = side
    return [
        L(f"{p}_hip_yaw", parent, "revolute", Z, hip_xyz, 0.8, (0, 0, -0.03), (0.0012, 0.0012, 0.0010)),
        L(f"{p}_hip_roll", f"{p}_hip_yaw", "revolute", X, (0, 0, -0.06), 0.8, (0, 0, -0.02), (0.0011, 0.0012, 0.0009)),
        L(f"{p}_thigh", f"{p}_hip_roll", "revolute", Y, (0, 0, 0), 4.0, (0.01, 0, -0.2), (0.055, 0.056, 0.008)),
        L(f"{p}_shank", f"{p}_thigh", "revolute", Y, (0, 0, -0.4), 2.5, (0, 0, -0.2), (0.034, 0.035, 0.004)),
        L(f"{p}_ankle", f"{p}_shank", "revolute", Y, (0, 0, -0.4), 0.3, (0, 0, 0), (0.0003, 0.0003, 0.0002)),
        L(f"{p}_foot", f"{p}_ankle", "revolute", X, (0, 0, 0), 1.0, (0.03, 0, -0.05), (0.0021, 0.0052, 0.0055)),
    ]


def biped():
    trunk = L("trunk", "world", "floating6", Z, (0, 0, 0.9), 12.0, (0, 0, 0.15), (0.30, 0.25, 0.12))
    return [trunk] + leg("left", 1, "trunk", (0, 0.1, -0.05)) + leg("right", -1, "trunk", (0, -0.1, -0.05))


def biped_reachability():
    n = 18
    D = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i == j:
                D[i][j] = 1
            elif i < 6:
                D[i][j] = int(j < i)
            elif i < 12:
                D[i][j] = int(j < 6 or 6 <= j < i)
            else:
                D[i][j] = int(j < 6 or 12 <= j < i)
    return D


def humanoid():
    ls = [L("pelvis", "world", "free", Z, (0, 0, 1.0), 8.0, (0, 0, 0.05), (0.08, 0.06, 0.07))]
    ls += [L("waist_yaw", "pelvis", "revolute", Z, (0, 0, 0.12), 1.0, (0, 0, 0.02), (0.002, 0.002, 0.002)),
           L("waist_pitch", "waist_yaw", "revolute", Y, (0, 0, 0.05), 1.0, (0, 0, 0.02), (0.002, 0.002, 0.002)),
           L("torso", "waist_pitch", "revolute", X, (0, 0, 0.05), 15.0, (0, 0, 0.2), (0.35, 0.28, 0.15)),
           L("neck_yaw", "torso", "revolute", Z, (0, 0, 0.45), 0.5, (0, 0, 0.03), (0.0005, 0.0005, 0.0004)),
           L("head", "neck_yaw", "revolute", Y, (0, 0, 0.06), 4.0, (0.02, 0, 0.1), (0.02, 0.022, 0.016))]
    for side, sy in (("left", 1), ("right", -1)):
        p = side
        ls += [L(f"{p}_shoulder_pitch", "torso", "revolute", Y, (0, 0.2 * sy, 0.38), 1.2, (0, 0.03 * sy, 0), (0.002, 0.0015, 0.002)),
               L(f"{p}_shoulder_roll", f"{p}_shoulder_pitch", "revolute", X, (0, 0.05 * sy, 0), 1.0, (0, 0, -0.03), (0.0015, 0.0015, 0.001)),
               L(f"{p}_upper_arm", f"{p}_shoulder_roll", "revolute", Z, (0, 0, -0.05), 2.0, (0, 0, -0.12), (0.015, 0.015, 0.002)),
               L(f"{p}_elbow", f"{p}_upper_arm", "revolute", Y, (0, 0, -0.25), 1.5, (0, 0, -0.11), (0.01, 0.01, 0.0012)),
               L(f"{p}_wrist_yaw", f"{p}_elbow", "revolute", Z, (0, 0, -0.22), 0.4, (0, 0, -0.02), (0.0003, 0.0003, 0.0002)),
               L(f"{p}_hand", f"{p}_wrist_yaw", "revolute", X, (0, 0, -0.04), 0.5, (0, 0, -0.06), (0.0008, 0.0009, 0.0003))]
    for side, sy in (("left", 1), ("right", -1)):
        ls += leg(side, sy, "pelvis", (0, 0.1 * sy, -0.05))
    return ls


def double_pendulum():
    # Textbook planar double pendulum in the x-z plane, angles about +y from the downward vertical.
    return [L("link1", "world", "revolute", Y, (0, 0, 0), 1.0, (0, 0, -0.5), (0.09, 0.0833, 0.01)),
            L("link2", "link1", "revolute", Y, (0, 0, -1.0), 2.0, (0, 0, -0.35), (0.05, 0.06, 0.01))]


def arm6():
    return [L("base", "world", "fixed", Z, (0, 0, 0), 5.0, (0, 0, 0.05), (0.02, 0.02, 0.02)),
            L("link1", "base", "revolute", Z, (0, 0, 0.1), 4.0, (0, 0, 0.15), (0.03, 0.03, 0.01)),
            L("link2", "link1", "revolute", Y, (0, 0.1, 0.3), 6.0, (0.2, 0, 0), (0.01, 0.08, 0.08)),
            L("link3", "link2", "revolute", Y, (0.45, -0.05, 0), 3.0, (0.15, 0, 0.02), (0.005, 0.03, 0.03)),
            L("link4", "link3", "revolute", X, (0.35, 0, 0.04), 1.5, (0.05, 0, 0), (0.002, 0.003, 0.003)),
            L("link5", "link4", "revolute", Y, (0.1, 0, 0), 1.0, (0.03, 0, 0), (0.001, 0.0015, 0.0015), rpy=(0.3, 0, 0)),
            L("link6", "link5", "revolute", X, (0.08, 0, 0), 0.5, (0.04, 0.01, 0), (0.0005, 0.0008, 0.0008))]


def write(name, text):
    with open(os.path.join(HERE, name), "w") as fh:
        fh.write(text)


hdr = ["The 18-link biped of document 003 (Kovalchuk, Kulakov, Semenov 2008, Fig. 2-3): floating",
       "base as the fictitious 6-joint chain (links 1-6, the trunk is link 6), legs = links 7-12, 13-18.",
       "Dimensions and masses are not in the paper; ours are documented in docs/TREE.md.",
       "Generated by models/tree/generate_models.py."]
write("biped.yaml", yaml_of("biped18", biped(), hdr, biped_reachability()))
write("biped.urdf", urdf_of("biped18", biped(), "Same biped as biped.yaml (floating joint = fictitious chain when loaded with --base fictitious). Generated by generate_models.py."))
write("humanoid35.urdf", urdf_of("humanoid35", humanoid(), "Simple humanoid: free base + 29 revolute joints = 35 DOF. Generated by generate_models.py."))
write("double_pendulum.yaml", yaml_of("double_pendulum", double_pendulum(), ["Planar double pendulum (x-z plane), l1 = 1 m, lc1 = 0.5 m, lc2 = 0.35 m, m1 = 1 kg, m2 = 2 kg.", "Generated by models/tree/generate_models.py."]))
write("arm6.yaml", yaml_of("arm6", arm6(), ["6-DOF serial arm with offsets and a tilted joint (test model).", "Generated by models/tree/generate_models.py."]))
