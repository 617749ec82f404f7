// Shrinking RGBA pixels by area averaging: each new pixel is the mean of the source pixels it covers, weighted
// by how much of each it covers, with colour weighted by alpha so transparent pixels do not darken edges.

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, row by row. */
  data: Uint8Array;
}

/** The size that fits `maxEdge` on the long side, keeping the aspect ratio (never larger than the original). */
export function fittedSize(
  width: number,
  height: number,
  maxEdge: number,
): { width: number; height: number } {
  const ratio = Math.min(1, maxEdge / Math.max(width, height));
  return {
    width: Math.max(1, Math.round(width * ratio)),
    height: Math.max(1, Math.round(height * ratio)),
  };
}

/** Source spans per target index along one axis: which source indices and how much of each. */
function spans(from: number, to: number): Array<Array<[index: number, weight: number]>> {
  const step = from / to;
  return Array.from({ length: to }, (_, i) => {
    const start = i * step;
    const end = start + step;
    const covered: Array<[number, number]> = [];
    for (let s = Math.floor(start); s < Math.min(Math.ceil(end), from); s++) {
      covered.push([s, Math.min(end, s + 1) - Math.max(start, s)]);
    }
    return covered;
  });
}

export function shrink(source: Pixels, width: number, height: number): Pixels {
  if (width >= source.width && height >= source.height) return source;
  const xs = spans(source.width, width);
  const ys = spans(source.height, height);
  const out = new Uint8Array(width * height * 4);
  const sums = new Float64Array(width * 4);
  const weights = new Float64Array(width);
  const src = source.data;
  for (let y = 0; y < height; y++) {
    sums.fill(0);
    weights.fill(0);
    for (const [sy, wy] of ys[y] ?? []) {
      const row = sy * source.width * 4;
      for (let x = 0; x < width; x++) {
        let r = 0;
        let g = 0;
        let b = 0;
        let a = 0;
        let weight = 0;
        for (const [sx, wx] of xs[x] ?? []) {
          const p = row + sx * 4;
          const w = wx * wy;
          const alpha = (src[p + 3] ?? 0) * w;
          r += (src[p] ?? 0) * alpha;
          g += (src[p + 1] ?? 0) * alpha;
          b += (src[p + 2] ?? 0) * alpha;
          a += alpha;
          weight += w;
        }
        const s = x * 4;
        sums[s] = (sums[s] ?? 0) + r;
        sums[s + 1] = (sums[s + 1] ?? 0) + g;
        sums[s + 2] = (sums[s + 2] ?? 0) + b;
        sums[s + 3] = (sums[s + 3] ?? 0) + a;
        weights[x] = (weights[x] ?? 0) + weight;
      }
    }
    for (let x = 0; x < width; x++) {
      const alphaSum = sums[x * 4 + 3] ?? 0;
      const o = (y * width + x) * 4;
      for (let c = 0; c < 3; c++)
        out[o + c] = alphaSum > 0 ? Math.round((sums[x * 4 + c] ?? 0) / alphaSum) : 0;
      out[o + 3] = Math.round(alphaSum / (weights[x] ?? 1));
    }
  }
  return { width, height, data: out };
}
