// mjcf_reference: the MuJoCo reference trajectories of the MJCF import tests.
//
//   mjcf_reference MODEL.xml OUT.csv            (MuJoCo 2.2.2, Debian: writes *.mujoco.csv)
//   mjcf_reference_mujoco3 MODEL.xml OUT.csv    (MuJoCo 3.x, TENDYN_MUJOCO3_PREFIX: *.mujoco3.csv)
//
// Loads MODEL.xml with MuJoCo, starts from its first keyframe (its ctrl held constant), and integrates with RK4 at 0.1 ms
// for 2 s with gravity 0 and contacts disabled (whatever the file says). Every 10 ms it writes
// the world position of every site: columns t_s, <site>.x_m, <site>.y_m, <site>.z_m, ... (sites
// in MuJoCo's order). Built only where MuJoCo is found (tests/peers/tests.cmake), once per MuJoCo
// version from this source; the CSVs next to the XML files in tests/data/mjcf/ were written by it.
// Prints the MuJoCo version it runs against and refuses (exit 1) a library of another version
// than its headers. A file MuJoCo refuses (MuJoCo 3 no longer loads coordinate="global") is
// exit 2 with MuJoCo's message, and no CSV is written.
#include <mujoco/mujoco.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: mjcf_reference MODEL.xml OUT.csv\n");
    return 1;
  }
  if (mj_version() != mjVERSION_HEADER) {
    std::fprintf(stderr, "mjcf_reference: built for MuJoCo mjVERSION_HEADER %d, loaded %s (%d)\n", mjVERSION_HEADER, mj_versionString(),
                 mj_version());
    return 1;
  }
  std::printf("mjcf_reference: MuJoCo %s, %s -> %s\n", mj_versionString(), argv[1], argv[2]);
  char err[1000] = "";
  mjModel* m = mj_loadXML(argv[1], nullptr, err, sizeof err);
  if (!m) {
    std::fprintf(stderr, "mjcf_reference: %s: %s\n", argv[1], err);
    return 2;
  }
  if (m->nkey < 1) {
    std::fprintf(stderr, "mjcf_reference: %s: needs a keyframe\n", argv[1]);
    mj_deleteModel(m);
    return 2;
  }
  m->opt.timestep = 1e-4;
  m->opt.integrator = mjINT_RK4;
  m->opt.gravity[0] = m->opt.gravity[1] = m->opt.gravity[2] = 0.0;
  m->opt.disableflags |= mjDSBL_CONTACT;
  mjData* d = mj_makeData(m);
  mj_resetDataKeyframe(m, d, 0);
  for (int u = 0; u < m->nu; ++u) d->ctrl[u] = m->key_ctrl[u];  // the key's commands, held (whatever the version copies)
  d->time = 0.0;
  mj_forward(m, d);
  std::FILE* out = std::fopen(argv[2], "w");
  if (!out) {
    std::fprintf(stderr, "mjcf_reference: cannot write %s\n", argv[2]);
    return 2;
  }
  std::fprintf(out, "t_s");
  for (int s = 0; s < m->nsite; ++s) {
    const char* name = mj_id2name(m, mjOBJ_SITE, s);
    const std::string n = name ? name : "site" + std::to_string(s);
    std::fprintf(out, ",%s.x_m,%s.y_m,%s.z_m", n.c_str(), n.c_str(), n.c_str());
  }
  std::fprintf(out, "\n");
  const int steps_per_row = 100, rows = 200;  // 10 ms, 2 s
  for (int row = 0; row <= rows; ++row) {
    if (row > 0)
      for (int k = 0; k < steps_per_row; ++k) mj_step(m, d);
    mj_kinematics(m, d);
    std::fprintf(out, "%.2f", row * 0.01);
    for (int s = 0; s < 3 * m->nsite; ++s) std::fprintf(out, ",%.10g", d->site_xpos[s]);
    std::fprintf(out, "\n");
  }
  std::fclose(out);
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
