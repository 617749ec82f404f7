// Every file tool refuses the files the context hides (a credentials file a login step left in the
// workspace), read or write, through the one path check they share, and leaves the file as it was.
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { editFileTool } from '../../../src/agent/tools/edit-file.js';
import { withImages } from '../../../src/agent/tools/image-file.js';
import { readFileTool } from '../../../src/agent/tools/read-file.js';
import { writeFileTool } from '../../../src/agent/tools/write-file.js';
import { fx, inWs, toolError, useFileToolWorkspace } from '../../support/file-tools.js';

useFileToolWorkspace();

/** The first bytes of a PNG: read_file with images would answer it as a picture if it were not refused. */
const PNG_START = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe('hidden files', () => {
  it('are refused by read_file, read_file with images, write_file and edit_file, by name or by a link', async () => {
    const creds = inWs('gha-creds-1234.json');
    await writeFile(creds, Buffer.concat([PNG_START, Buffer.from('{"private_key":"k"}')]));
    await symlink(creds, inWs('innocent.json'));
    const context = { ...fx.context, hidden: [creds] };
    const refusal = 'it holds credentials the tools may not read';
    for (const path of ['gha-creds-1234.json', 'innocent.json']) {
      expect(await toolError(readFileTool.run({ path }, context))).toContain(refusal);
      const answer = withImages(readFileTool).run({ path }, context);
      expect(await toolError(answer.then(() => 'an answer'))).toContain(refusal);
      expect(await toolError(writeFileTool.run({ path, content: 'x' }, context))).toContain(refusal);
      const edit = editFileTool.run({ path, old_text: 'k', new_text: 'x' }, context);
      expect(await toolError(edit)).toContain(refusal);
    }
    expect((await readFile(creds)).subarray(0, PNG_START.length)).toEqual(PNG_START);
    expect(await readFile(creds, 'utf8')).toContain('"private_key":"k"');
  });
});
