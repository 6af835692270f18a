// Saving what the viewer shows: a PNG still, PNG frames, the playback as WebM.
// Methods of Viewer (viewer.js installs them on its prototype): `this` is the viewer, whose
// state they share.
import { el } from './dom.js';

export const recordMethods = {
  download(url, name) {
    const a = el('a', { href: url, download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
  },

  /// The 3D view at the current frame as a PNG data URL (rendered now: the drawing buffer is
  /// read in the same task).
  still() {
    this.renderer.render(this.scene3, this.camera);
    return this.renderer.domElement.toDataURL('image/png');
  },

  /// PNG data URLs of frames from, from + step, ... to (the current frame restored after).
  pngFrames({ from = 0, to = null, step = 1 } = {}) {
    if (!this.store || !this.store.n) return [];
    const k0 = this.frameIndex;
    const last = to === null ? this.store.n - 1 : Math.min(to, this.store.n - 1);
    const out = [];
    for (let k = Math.max(0, from); k <= last; k += Math.max(1, step)) {
      this.applyFrame(k);
      out.push(this.still());
    }
    this.applyFrame(k0);
    return out;
  },

  /// Records the playback from simulated time t0 to t1 (default: the whole run) at `fps` video
  /// frames per second and `speed` x real time, as a WebM blob (MediaRecorder on the canvas; it
  /// takes (t1 - t0) / speed of wall time).
  async recordWebm({ fps = 30, speed = 1, t0 = null, t1 = null } = {}) {
    if (!this.store || !this.store.n) throw new Error('nothing to record: no frames');
    if (typeof MediaRecorder === 'undefined') throw new Error('this browser cannot record video (no MediaRecorder)');
    const f = this.store.f;
    const a = t0 === null ? f.t_s[0] : t0, b = t1 === null ? f.t_s[this.store.n - 1] : t1;
    this.pause();
    this.recording = true;
    const cv = this.renderer.domElement;
    const stream = cv.captureStream(0);
    const track = stream.getVideoTracks()[0];
    const type = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'].find((t) => MediaRecorder.isTypeSupported(t));
    const rec = new MediaRecorder(stream, { mimeType: type, videoBitsPerSecond: 4e6 });
    const chunks = [];
    rec.ondataavailable = (e) => { if (e.data && e.data.size) chunks.push(e.data); };
    const done = new Promise((res) => { rec.onstop = res; });
    rec.start();
    const n = Math.max(1, Math.round(((b - a) / speed) * fps));
    try {
      for (let i = 0; i <= n; i++) {
        this.seekTime(a + (i / n) * (b - a));
        this.renderer.render(this.scene3, this.camera);
        if (track.requestFrame) track.requestFrame();
        await new Promise((r) => setTimeout(r, 1000 / fps));
      }
    } finally {
      rec.stop();
      await done;
      track.stop();
      this.recording = false;
    }
    return new Blob(chunks, { type: 'video/webm' });
  },
};
