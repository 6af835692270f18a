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

  /// Fixes the 3D view at `width` x `height` CSS pixels over the top left of the window, one
  /// device pixel per CSS pixel (also on a software renderer, whose pixel cap is lifted), so that
  /// still() and recordWebm() give images of exactly that size (headless `tendyn render`).
  setRenderSize(width, height) {
    const w = Math.round(width), h = Math.round(height);
    if (!(w >= 16 && h >= 16 && w <= 7680 && h <= 4320)) throw new Error(`render size ${width} x ${height}: must be 16 ... 7680 x 16 ... 4320 pixels`);
    this.renderSize = { width: w, height: h };
    Object.assign(this.view3d.style, { position: 'fixed', left: '0', top: '0', width: `${w}px`, height: `${h}px`, zIndex: '1000' });
    this.resize();
    return { width: this.renderer.domElement.width, height: this.renderer.domElement.height };
  },

  /// The 3D view at simulated time t (the last frame at or before it) as a PNG data URL.
  stillAt(t) {
    this.pause();
    this.seekTime(t);
    return this.still();
  },

  /// recordWebm(o) as a data URL (data:video/webm;base64,...), for a caller outside the page.
  async recordWebmDataUrl(o) {
    const blob = await this.recordWebm(o);
    return new Promise((resolve, reject) => {
      const r = new FileReader();
      r.onload = () => resolve(r.result);
      r.onerror = () => reject(r.error || new Error('cannot read the recorded video'));
      r.readAsDataURL(blob);
    });
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
    const started = new Promise((res) => { rec.onstart = res; });
    rec.start(250);
    // frames given before the recorder has started are lost (a loaded machine: a video of no
    // frame at all); and the encoder needs a moment after the last one
    await Promise.race([started, new Promise((r) => setTimeout(r, 2000))]);
    const n = Math.max(1, Math.round(((b - a) / speed) * fps));
    try {
      for (let i = 0; i <= n; i++) {
        this.seekTime(a + (i / n) * (b - a));
        this.renderer.render(this.scene3, this.camera);
        if (track.requestFrame) track.requestFrame();
        await new Promise((r) => setTimeout(r, 1000 / fps));
      }
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      rec.stop();
      await done;
      track.stop();
      this.recording = false;
    }
    return new Blob(chunks, { type: 'video/webm' });
  },
};
