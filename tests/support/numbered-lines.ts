// A file of numbered lines (`line 1` … `line N`) and what read_file shows of a stretch of it, for the file
// tools' tests of offsets, limits and cuts.

export const numberedLines = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join('');

/** What read_file shows for lines `from`..`to` of numberedLines(): `cat -n` rows. */
export const shownLines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${String(from + i).padStart(6)}\tline ${from + i}`).join(
    '\n',
  );
