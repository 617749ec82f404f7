// Bench measure 9: what hostile input costs. The hidden-text filter on 64 KB of openers that never close (the
// source's own function, in this process); and pictures up to the 10 MB caps, hostile and honest: each
// decoded by the bundled decoder (its own peak memory and time), all of them read in turn by the bundled CLI's
// read_file, and three PNG bombs beside a real screenshot in a stranger's comment read by the bundled action.
// The CLI's and the action's peak memory and longest event-loop hold are their own (tests/support/memory-probe).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { GifWriter } from 'omggif';
import { PNG } from 'pngjs';
import { stripHidden } from '../../../src/github/thread/hidden-text.js';
import { decodeInChildProcess } from '../../../src/images/decoder.js';
import { createWorld } from '../../e2e/setup.js';
import { ROOT } from '../action-harness.js';
import { reply, startModelServer, text, toolUse } from '../anthropic/server.js';
import { gifFrameBomb, jpegClaiming, pngBomb, webpCanvasLie } from '../hostile-images.js';
import { memoryProbe, type ProcessCost } from '../memory-probe.js';
import { webp } from '../webp.js';
import { runProblems } from './cli.js';
import { median } from './stats.js';

const KB64 = 64 * 1024;
const fill = (unit: string) => unit.repeat(Math.ceil(KB64 / unit.length)).slice(0, KB64);

/** 64 KB each of openers that never close, the ones the filter once rescanned to the end from. */
export const FILTER_INPUTS: Readonly<Record<string, string>> = {
  '<?': fill('<?'),
  '<!a': fill('<!a'),
  '<!': fill('<!'),
  '<!--': fill('<!--'),
  '![': fill('!['),
  '<img': fill('<img'),
  '[ (nested)': fill('['),
  '![[': fill('![['),
  '[a': fill('[a'),
  'a mix': fill('<?<!a![<img [![x[y] <!DOCTYPE '),
};

export interface FilterCost {
  /** Median milliseconds per input, after one warm-up run. */
  byInput: Record<string, number>;
  slowest: { input: string; ms: number };
}

/** The filter's time on each pathological input: the median of `reps` runs. */
export function measureFilter(reps: number): FilterCost {
  const byInput: Record<string, number> = {};
  for (const [name, input] of Object.entries(FILTER_INPUTS)) {
    stripHidden(input);
    const times = Array.from({ length: reps }, () => {
      const started = performance.now();
      stripHidden(input);
      return performance.now() - started;
    });
    byInput[name] = median(times);
  }
  const [input, ms] = Object.entries(byInput).sort((a, b) => b[1] - a[1])[0]!;
  return { byInput, slowest: { input, ms } };
}

interface Sample {
  name: string;
  file: string;
  bytes: Buffer;
}

function gradient(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = i % 256;
    data[i * 4 + 1] = (i >> 8) % 256;
    data[i * 4 + 2] = 90;
    data[i * 4 + 3] = 255;
  }
  return data;
}

function flatGif(width: number, height: number): Buffer {
  const buffer = Buffer.alloc(width * height + 1_000_000);
  const writer = new GifWriter(buffer, width, height, { palette: [0x000000, 0xff0000] });
  const indices = new Uint8Array(width * height).map((_, i) => (i >> 12) % 2);
  writer.addFrame(0, 0, width, height, indices as unknown as number[]);
  return buffer.subarray(0, writer.end());
}

/** The pictures measured: the hostile ones always, the large honest ones (slow to make) unless quick. */
async function samples(quick: boolean): Promise<Sample[]> {
  const found: Array<Omit<Sample, 'file'>> = [
    {
      name: 'PNG bomb: interlaced, 2000×2000 declared, inflates to 512 MB',
      bytes: await pngBomb({ width: 2000, height: 2000, inflatedBytes: 512 * 1024 * 1024 }),
    },
    { name: 'JPEG of 16×16 px whose header claims 8000×8000', bytes: jpegClaiming(8000, 8000) },
    {
      name: 'GIF whose first frame claims 60000×60000 on a 2000×10 screen',
      bytes: gifFrameBomb([2000, 10], [60_000, 60_000]),
    },
    {
      name: 'WebP whose 16000×16000 picture sits on a 2000×2000 canvas',
      bytes: webpCanvasLie([2000, 2000], [16_000, 16_000]),
    },
  ];
  if (!quick) {
    const pixels = gradient(4000, 4000);
    const png = new PNG({ width: 4000, height: 4000 });
    png.data = pixels;
    found.push(
      {
        name: 'PNG 8000×8000, 16-bit, honest (inflates to the 512 MB it declares)',
        bytes: await pngBomb({
          width: 8000,
          height: 8000,
          inflatedBytes: (8000 * 8 + 1) * 8000,
          interlaced: false,
          bitDepth: 16,
        }),
      },
      { name: 'PNG 4000×4000 gradient', bytes: PNG.sync.write(png) },
      {
        name: 'JPEG 4000×4000 gradient',
        bytes: Buffer.from(jpeg.encode({ width: 4000, height: 4000, data: pixels }, 80).data),
      },
      { name: 'GIF 8000×8000', bytes: flatGif(8000, 8000) },
      { name: 'WebP 4000×4000 gradient', bytes: await webp(4000, 4000, pixels) },
    );
  }
  return found.map((sample, index) => ({ ...sample, file: `sample-${index + 1}` }));
}

export interface DecodeCost {
  sample: string;
  fileBytes: number;
  /** "shown W×H" or why it was skipped. */
  outcome: string;
  /** The decoder's own peak, when it lived to say (one killed at its limit does not). */
  peakRssMb?: number;
  seconds: number;
}

export interface HostileInputs {
  filter: FilterCost;
  decoder: DecodeCost[];
  /** The bundled CLI reading every sample with read_file, one a turn. */
  cliReadFile: ProcessCost & { pictures: number };
  /** The bundled action, three PNG bombs and a 2400×1200 screenshot in a stranger's comment. */
  actionThread: ProcessCost;
}

const mb = (kb: number) => (kb * 1024) / 1e6;

/** Measure 9: the filter, each sample in the bundled decoder, the CLI's read_file, the action's thread. */
export async function measureHostileInputs(filterReps: number, quick: boolean): Promise<HostileInputs> {
  const filter = measureFilter(filterReps);
  const all = await samples(quick);
  const decoder: DecodeCost[] = [];
  for (const sample of all) {
    const decoded = await decodeInChildProcess(sample.bytes, { bundle: join(ROOT, 'dist/image-decoder.js') });
    const { fit } = decoded;
    decoder.push({
      sample: sample.name,
      fileBytes: sample.bytes.length,
      outcome: 'image' in fit ? `shown ${fit.image.width}×${fit.image.height}` : fit.skipped,
      ...(decoded.peakRssKb === undefined ? {} : { peakRssMb: mb(decoded.peakRssKb) }),
      seconds: decoded.ms / 1000,
    });
  }
  return {
    filter,
    decoder,
    cliReadFile: { ...(await cliReadingAll(all)), pictures: all.length },
    actionThread: await actionReadingBombs(all[0]!.bytes),
  };
}

const KEY = 'sk-ant-bench-key-000000000000000000000';

/** The bundled CLI reads each sample with read_file, one a turn; what that cost the CLI's own process. */
async function cliReadingAll(all: readonly Sample[]): Promise<ProcessCost> {
  const dir = await mkdtemp(join(tmpdir(), 'todo-agent-bench-pictures-'));
  const plan = (status: string) =>
    toolUse('todo', { items: [{ text: 'Look at the pictures', activeForm: 'Looking', status }] });
  const server = await startModelServer(
    [
      reply(plan('in_progress')),
      ...all.map((sample) => reply(toolUse('read_file', { path: sample.file }))),
      reply(plan('completed')),
      reply(text('Looked at them all.')),
    ],
    { apiKey: KEY },
  );
  const probe = await memoryProbe();
  try {
    for (const sample of all) await writeFile(join(dir, sample.file), sample.bytes);
    const child = spawn(
      process.execPath,
      [
        ...probe.nodeArgs,
        join(ROOT, 'dist/cli.js'),
        'look at the pictures',
        '--no-sandbox',
        '--max-turns',
        '40',
      ],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: dir,
          ANTHROPIC_API_KEY: KEY,
          ANTHROPIC_BASE_URL: server.url,
          ...probe.env,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    const problems = runProblems(code, server);
    if (problems.length > 0)
      throw new Error(`bench: the CLI's pictures went wrong: ${problems.join('; ')}\n${stderr}`);
    return await probe.read();
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The bundled action, three PNG bombs and a screenshot in a stranger's comment; what it cost the action. */
async function actionReadingBombs(bomb: Buffer): Promise<ProcessCost> {
  const plan = toolUse('todo', { items: [{ text: 'Fix it', activeForm: 'Fixing', status: 'completed' }] });
  const world = await createWorld([reply(plan), reply(text('Looked at the screenshot.'))]);
  try {
    const shot = new PNG({ width: 2400, height: 1200 });
    shot.data = gradient(2400, 1200);
    const urls = [bomb, bomb, bomb, PNG.sync.write(shot)].map((bytes) => world.github.addAttachment(bytes));
    world.github.addComment(1, 'stranger', urls.map((url) => `![](${url})`).join('\n'));
    const probe = await memoryProbe();
    const run = await world.trigger('/agent fix the layout', {
      env: { GITHUB_SERVER_URL: world.github.url, ...probe.env },
      nodeArgs: probe.nodeArgs,
    });
    if (
      run.outputs.status !== 'completed' ||
      !run.stdout.includes('Pictures from the thread: 1 shown, 3 not.')
    )
      throw new Error(`bench: the action's thread pictures went wrong\n${run.stderr.slice(-2000)}`);
    return await probe.read();
  } finally {
    await world.close();
  }
}
