/**
 * Generates the sandbox sample media in preview-pages/assets/samples/ (committed; run again only
 * to change them): `npx tsx scripts/generate-sandbox-samples.ts`.
 *
 * Everything is drawn here from code, so the files carry no third-party rights:
 * - PNG: written by the small encoder below (zlib deflate, per-row adaptive filters).
 * - PDF: written by hand (one page, Helvetica, correct xref offsets).
 * - JPEG, MP4 and the video poster: raw RGB frames drawn here, encoded by Debian's `ffmpeg`
 *   (libx264 / mjpeg). ffmpeg is needed only to regenerate, never at run time.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'preview-pages', 'assets', 'samples');

// ---------------------------------------------------------------------------------------------
// A tiny raster canvas (RGB, floats) with anti-aliased shapes by coverage.

type Rgb = [number, number, number];

class Canvas {
  readonly data: Float32Array;
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.data = new Float32Array(width * height * 3);
  }
  /** fn(x, y) → colour for every pixel (centre sampled). */
  fill(fn: (x: number, y: number) => Rgb): void {
    for (let y = 0; y < this.height; y++)
      for (let x = 0; x < this.width; x++) {
        const c = fn(x + 0.5, y + 0.5);
        const i = (y * this.width + x) * 3;
        this.data[i] = c[0];
        this.data[i + 1] = c[1];
        this.data[i + 2] = c[2];
      }
  }
  /** Blends colour where cover(x, y) in [0, 1] says so. */
  paint(color: Rgb, cover: (x: number, y: number) => number, x0 = 0, y0 = 0, x1 = this.width, y1 = this.height): void {
    const xa = Math.max(0, Math.floor(x0));
    const ya = Math.max(0, Math.floor(y0));
    const xb = Math.min(this.width, Math.ceil(x1));
    const yb = Math.min(this.height, Math.ceil(y1));
    for (let y = ya; y < yb; y++)
      for (let x = xa; x < xb; x++) {
        const a = cover(x + 0.5, y + 0.5);
        if (a <= 0) continue;
        const i = (y * this.width + x) * 3;
        const k = Math.min(1, a);
        this.data[i] = this.data[i]! * (1 - k) + color[0] * k;
        this.data[i + 1] = this.data[i + 1]! * (1 - k) + color[1] * k;
        this.data[i + 2] = this.data[i + 2]! * (1 - k) + color[2] * k;
      }
  }
  circle(cx: number, cy: number, r: number, color: Rgb, alpha = 1): void {
    this.paint(color, (x, y) => alpha * clamp01(r - Math.hypot(x - cx, y - cy) + 0.5), cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1);
  }
  ellipse(cx: number, cy: number, rx: number, ry: number, color: Rgb): void {
    this.paint(
      color,
      (x, y) => {
        const d = Math.hypot((x - cx) / rx, (y - cy) / ry);
        return clamp01((1 - d) * Math.min(rx, ry) + 0.5);
      },
      cx - rx - 1,
      cy - ry - 1,
      cx + rx + 1,
      cy + ry + 1,
    );
  }
  roundRect(x0: number, y0: number, x1: number, y1: number, r: number, color: Rgb, alpha = 1): void {
    this.paint(
      color,
      (x, y) => {
        const qx = Math.max(x0 + r - x, 0, x - (x1 - r));
        const qy = Math.max(y0 + r - y, 0, y - (y1 - r));
        const inside = x >= x0 && x <= x1 && y >= y0 && y <= y1;
        if (!inside) return clamp01(0.5 - Math.max(x0 - x, x - x1, y0 - y, y - y1, 0));
        return alpha * clamp01(r - Math.hypot(qx, qy) + 0.5);
      },
      x0 - 1,
      y0 - 1,
      x1 + 1,
      y1 + 1,
    );
  }
  /** Region below the curve y = top(x) (anti-aliased along y). */
  below(top: (x: number) => number, color: Rgb): void {
    this.paint(color, (x, y) => clamp01(y - top(x) + 0.5));
  }
  ring(cx: number, cy: number, r: number, width: number, color: Rgb): void {
    this.paint(color, (x, y) => clamp01(width / 2 - Math.abs(Math.hypot(x - cx, y - cy) - r) + 0.5), cx - r - width, cy - r - width, cx + r + width, cy + r + width);
  }
  rgbBytes(): Buffer {
    const out = Buffer.alloc(this.width * this.height * 3);
    for (let i = 0; i < out.length; i++) out[i] = Math.max(0, Math.min(255, Math.round(this.data[i]!)));
    return out;
  }
}

const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);
const mix = (a: Rgb, b: Rgb, t: number): Rgb => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
const hex = (h: string): Rgb => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];

// ---------------------------------------------------------------------------------------------
// PNG encoder (8-bit RGB, adaptive filters per row).

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

export function encodePng(width: number, height: number, rgb: Buffer): Buffer {
  const stride = width * 3;
  const raw = Buffer.alloc((stride + 1) * height);
  const prev = Buffer.alloc(stride);
  const candidate = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const row = rgb.subarray(y * stride, (y + 1) * stride);
    const up = y === 0 ? prev : rgb.subarray((y - 1) * stride, y * stride);
    let bestFilter = 0;
    let bestScore = Infinity;
    let best = Buffer.from(row);
    for (let f = 0; f <= 4; f++) {
      let score = 0;
      for (let i = 0; i < stride; i++) {
        const a = i >= 3 ? row[i - 3]! : 0;
        const b = up[i]!;
        const c = i >= 3 ? up[i - 3]! : 0;
        const x = row[i]!;
        const v = f === 0 ? x : f === 1 ? x - a : f === 2 ? x - b : f === 3 ? x - ((a + b) >> 1) : x - paeth(a, b, c);
        candidate[i] = v & 0xff;
        const s = v & 0xff;
        score += s < 128 ? s : 256 - s;
      }
      if (score < bestScore) {
        bestScore = score;
        bestFilter = f;
        best = Buffer.from(candidate);
      }
    }
    raw[y * (stride + 1)] = bestFilter;
    best.copy(raw, y * (stride + 1) + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---------------------------------------------------------------------------------------------
// The pictures.

/** A dusk landscape; `sun` in [0, 1] moves the sun (the video animates it). */
function landscape(w: number, h: number, sun = 0.62): Canvas {
  const c = new Canvas(w, h);
  const top = hex('#2b2d6e');
  const mid = hex('#c2537a');
  const low = hex('#f6a55b');
  const horizon = h * 0.62;
  c.fill((_x, y) => {
    const t = y / horizon;
    return t < 0.55 ? mix(top, mid, t / 0.55) : t < 1 ? mix(mid, low, (t - 0.55) / 0.45) : low;
  });
  const sunX = w * (0.2 + 0.6 * sun);
  const sunY = horizon - h * 0.08 - Math.sin(Math.PI * sun) * h * 0.22;
  c.circle(sunX, sunY, h * 0.16, hex('#ffd98a'), 0.25);
  c.circle(sunX, sunY, h * 0.1, hex('#fff1c9'));
  const s = w / 960;
  c.below((x) => horizon - 95 * s - 60 * s * Math.sin(x / (170 * s) + 1.3) - 30 * s * Math.sin(x / (61 * s)), hex('#6b3f72'));
  c.below((x) => horizon - 35 * s - 45 * s * Math.sin(x / (120 * s) + 4) - 14 * s * Math.sin(x / (33 * s) + 2), hex('#47305e'));
  // Lake with a soft reflection of the sky.
  c.paint(hex('#33294d'), (_x, y) => clamp01(y - horizon + 0.5));
  c.paint(hex('#ffd98a'), (x, y) => (y > horizon ? 0.35 * clamp01(1 - Math.abs(x - sunX) / (h * 0.12)) * clamp01(1 - (y - horizon) / (h * 0.35)) * (Math.sin(y * 0.9) > -0.2 ? 1 : 0.3) : 0));
  c.below((x) => h * 0.86 + 14 * s * Math.sin(x / (90 * s)), hex('#1f1a33'));
  return c;
}

/** A cup of coffee on a mint background (flat shapes: compresses well as PNG). */
function coffee(size: number): Canvas {
  const c = new Canvas(size, size);
  const k = size / 640;
  c.fill((x, y) => mix(hex('#cfeee4'), hex('#a9dcc9'), (x + y) / (2 * size)));
  c.circle(320 * k, 330 * k, 250 * k, hex('#e3f6ef'));
  c.ellipse(320 * k, 470 * k, 200 * k, 42 * k, hex('#3c6e5f'));
  c.ellipse(320 * k, 462 * k, 190 * k, 36 * k, hex('#fbfbf7'));
  c.ring(440 * k, 350 * k, 52 * k, 22 * k, hex('#e76f51'));
  c.roundRect(190 * k, 250 * k, 450 * k, 470 * k, 60 * k, hex('#e76f51'));
  c.ellipse(320 * k, 255 * k, 130 * k, 26 * k, hex('#c55a3f'));
  c.ellipse(320 * k, 258 * k, 118 * k, 20 * k, hex('#5b3a29'));
  c.ellipse(300 * k, 255 * k, 30 * k, 6 * k, hex('#8a5a3c'));
  for (const [dx, ph] of [[-50, 0], [0, 1.7], [50, 3.1]] as const) {
    c.paint(hex('#ffffff'), (x, y) => {
      if (y < 90 * k || y > 215 * k) return 0;
      const cx = (320 + dx) * k + 14 * k * Math.sin(y / (18 * k) + ph);
      return 0.8 * clamp01(7 * k - Math.abs(x - cx) + 0.5) * clamp01((y - 90 * k) / (30 * k));
    });
  }
  return c;
}

/** A city skyline at blue hour, wide banner. */
function skyline(w: number, h: number): Canvas {
  const c = new Canvas(w, h);
  c.fill((_x, y) => mix(hex('#0f3057'), hex('#5fa8d3'), y / h));
  c.circle(w * 0.82, h * 0.22, h * 0.09, hex('#f1f6f9'));
  let seed = 7;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  let x = 0;
  while (x < w) {
    const bw = 40 + rnd() * 70;
    const bh = h * (0.3 + rnd() * 0.5);
    const color = mix(hex('#102a43'), hex('#243b53'), rnd());
    c.roundRect(x, h - bh, x + bw - 6, h + 10, 3, color);
    for (let wy = h - bh + 12; wy < h - 12; wy += 18)
      for (let wx = x + 8; wx < x + bw - 16; wx += 14) if (rnd() > 0.55) c.roundRect(wx, wy, wx + 6, wy + 8, 1, hex('#ffd166'), 0.9);
    x += bw;
  }
  return c;
}

/** Stand-in for media this server does not render (foreign URLs): a neutral picture frame. */
function placeholder(w: number, h: number): Canvas {
  const c = new Canvas(w, h);
  c.fill((x, y) => ((Math.floor(x / 24) + Math.floor(y / 24)) % 2 === 0 ? hex('#e8ebef') : hex('#dfe3e8')));
  const fw = h * 0.62;
  const fh = h * 0.46;
  const x0 = w / 2 - fw / 2;
  const y0 = h / 2 - fh / 2;
  c.roundRect(x0, y0, x0 + fw, y0 + fh, 12, hex('#8a94a0'));
  c.roundRect(x0 + 8, y0 + 8, x0 + fw - 8, y0 + fh - 8, 6, hex('#f4f6f8'));
  c.circle(x0 + fw * 0.72, y0 + fh * 0.32, fh * 0.11, hex('#8a94a0'));
  c.paint(hex('#8a94a0'), (x, y) => {
    if (x < x0 + 8 || x > x0 + fw - 8 || y > y0 + fh - 8) return 0;
    const peak1 = y0 + fh * 0.42 + Math.abs(x - (x0 + fw * 0.35)) * 0.9;
    const peak2 = y0 + fh * 0.58 + Math.abs(x - (x0 + fw * 0.68)) * 0.8;
    return clamp01(y - Math.min(peak1, peak2) + 0.5);
  });
  return c;
}

// ---------------------------------------------------------------------------------------------
// PDF written by hand.

function pdf(): Buffer {
  const esc = (s: string) => s.replace(/[\\()]/g, (m) => `\\${m}`);
  const lines: Array<[number, number, number, string]> = [
    [72, 740, 26, 'Sample brochure'],
    [72, 712, 12, 'A one-page PDF served by this server for sandbox file messages.'],
    [72, 670, 14, 'Opening hours'],
    [72, 650, 12, 'Monday to Friday  8:00 - 18:00'],
    [72, 634, 12, 'Saturday          9:00 - 14:00'],
    [72, 600, 14, 'Contact'],
    [72, 580, 12, 'hello@example.com  |  +1 555 0100'],
    [72, 120, 9, 'Generated by scripts/generate-sandbox-samples.ts. Contains no personal data.'],
  ];
  const text = lines.map(([x, y, size, s]) => `BT /F1 ${size} Tf ${x} ${y} Td (${esc(s)}) Tj ET`).join('\n');
  const stream = `0.1 0.45 0.91 rg 72 775 468 4 re f\n0 0 0 rg\n${text}\n`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}endstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Title (Sample brochure) /Producer (rcs-sms-mcp-server sample generator) >>',
  ];
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

// ---------------------------------------------------------------------------------------------

function ffmpeg(args: string[], input: Buffer): void {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { input, maxBuffer: 1 << 30 });
}

function writeJpeg(file: string, c: Canvas, quality = 4): void {
  ffmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${c.width}x${c.height}`, '-i', '-', '-frames:v', '1', '-q:v', String(quality), path.join(OUT, file)], c.rgbBytes());
}

function main(): void {
  fs.mkdirSync(OUT, { recursive: true });
  const png = (file: string, c: Canvas) => fs.writeFileSync(path.join(OUT, file), encodePng(c.width, c.height, c.rgbBytes()));

  writeJpeg('landscape.jpg', landscape(960, 480));
  png('coffee.png', coffee(480));
  writeJpeg('skyline.jpg', skyline(960, 400));
  png('placeholder.png', placeholder(480, 320));
  fs.writeFileSync(path.join(OUT, 'brochure.pdf'), pdf());

  // Video: 4 s at 12 fps, 480x240, the sun crossing the sky. H.264 baseline in MP4 (+faststart).
  const W = 480;
  const H = 240;
  const FRAMES = 48;
  const frames: Buffer[] = [];
  for (let f = 0; f < FRAMES; f++) frames.push(landscape(W, H, 0.15 + (0.7 * f) / (FRAMES - 1)).rgbBytes());
  ffmpeg(
    ['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${W}x${H}`, '-r', '12', '-i', '-', '-c:v', 'libx264', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-crf', '30', '-movflags', '+faststart', path.join(OUT, 'sunset.mp4')],
    Buffer.concat(frames),
  );
  writeJpeg('sunset-poster.jpg', landscape(W, H, 0.15), 5);

  for (const f of fs.readdirSync(OUT).sort()) process.stdout.write(`${f}\t${fs.statSync(path.join(OUT, f)).size} bytes\n`);
}

main();
