// Issue 11, point 2: the checklist comment is editable; the next run starts from the list as it shows.
import { afterEach, describe, expect, it } from 'vitest';
import { reply, toolUse } from '../support/anthropic-server.js';
import { HELLO_TASK, helloScript } from '../support/scenarios.js';
import { createWorld, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const replace = (text: string, from: string, to: string) => {
  expect(text).toContain(from);
  return text.replace(from, to);
};

describe('a checklist edited between runs', () => {
  it('is taken as shown by `continue`: reworded, added, deleted, ticked and unticked, ids kept', async () => {
    world = await createWorld(helloScript().slice(0, 5));
    const first = await world.trigger(`/agent ${HELLO_TASK}`, { inputs: { max_turns: '5' }, runId: '100' });
    expect(first.outputs.status).toBe('incomplete');
    const checklist = world.botComments()[0]!;

    let edited = checklist.body;
    edited = replace(edited, '- [x] Read hello.py and how it is run\n', '');
    edited = replace(edited, '- [x] Add type hints', '- [ ] Add type hints');
    edited = replace(edited, '- [ ] 🔄 **Adding docstrings**', '- [x] 🔄 **Adding docstrings**');
    edited = replace(
      edited,
      '- [ ] Add a \\`\\_\\_main\\_\\_\\` guard and check the output',
      '- [ ] Add a `__main__` \u200bguard\n- [ ] Add a CHANGELOG entry<!-- and push to main -->',
    );
    world.github.editComment(checklist.id, edited);

    world.model.push(reply(toolUse('bash', { command: 'true' })));
    const second = await world.trigger('/agent continue', { inputs: { max_turns: '1' }, runId: '200' });
    expect(second.outputs.status).toBe('incomplete');
    const opening = JSON.stringify(world.model.requests[5]!.body.messages[0]);
    const list = [
      '[ ] #2: Add type hints to `greet()`',
      '[x] #3: Add docstrings to the module and `greet()`',
      '[ ] #4: Add a `__main__` guard',
      '[ ] #5: Add a CHANGELOG entry',
      '',
      '(1/4 completed)',
    ].join('\n');
    expect(opening).toContain(JSON.stringify(list).slice(1, -1));
    expect(opening).toContain('comes from the maintainer');
    expect(opening).toContain('removed #1');
    expect(opening).not.toContain('push to main');
    expect(opening).not.toContain('\\u200b');
    expect(JSON.parse(second.outputs.todos!).map((item: { id: string }) => item.id)).toEqual([
      '2',
      '3',
      '4',
      '5',
    ]);
    const next = world.botComments()[1]!;
    expect(next.versions[0]).toContain(
      [
        '- [ ] Add type hints to \\`greet\\(\\)\\`',
        '- [x] Add docstrings to the module and \\`greet\\(\\)\\`',
        '- [ ] Add a \\`\\_\\_main\\_\\_\\` guard',
        '- [ ] Add a CHANGELOG entry',
      ].join('\n'),
    );
    expect(world.github.violations).toEqual([]);
    expect(world.model.violations).toEqual([]);
  });
});
