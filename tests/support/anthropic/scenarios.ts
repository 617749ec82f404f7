// Scripted model sessions shared by the end-to-end tests, the demo and the benchmark.
import { reply, text, toolUse, type ScriptStep } from './server.js';
import type { ToolUseContent } from './types.js';

export const HELLO_TASK = 'Refactor hello.py: add type hints, docstrings, and a main guard';

export const HELLO_FILES: Record<string, string> = {
  'hello.py': 'def greet(name):\n    return "Hello, " + name + "!"\n\nprint(greet("world"))\n',
  'README.md': '# hello-world\n\nRun `python3 hello.py`.\n',
  '.gitignore': '__pycache__/\n*.log\n',
};

const PLAN = [
  { text: 'Read hello.py and how it is run', activeForm: 'Reading hello.py' },
  { text: 'Add type hints to `greet()`', activeForm: 'Adding type hints' },
  { text: 'Add docstrings to the module and `greet()`', activeForm: 'Adding docstrings' },
  { text: 'Add a `__main__` guard and check the output', activeForm: 'Adding the main guard' },
];

/** The plan with items before `active` completed, `active` in progress, the rest pending. */
export function planAt(active: number, items = PLAN) {
  return toolUse('todo', {
    items: items.map((item, index) => ({
      id: String(index + 1),
      ...item,
      status: index < active ? 'completed' : index === active ? 'in_progress' : 'pending',
    })),
  });
}

/** A one-item run: the item in progress, each tool call a turn of its own, the item completed, then `summary`. */
export function oneItemScript(
  item: { text: string; activeForm: string },
  calls: ToolUseContent[],
  summary: string,
): ScriptStep[] {
  const todo = (status: string) => toolUse('todo', { items: [{ ...item, status }] });
  return [
    reply(todo('in_progress')),
    ...calls.map((call) => reply(call)),
    reply(todo('completed')),
    reply(text(summary)),
  ];
}

/** The seeds' sample task, played turn by turn: 11 requests, 5 todo updates, a PR-worthy diff. */
export function helloScript(): ScriptStep[] {
  return [
    reply(text('I will plan the refactor first.'), planAt(0)),
    reply(toolUse('read_file', { path: 'hello.py' })),
    reply(planAt(1)),
    reply(
      toolUse('edit_file', {
        path: 'hello.py',
        old_text: 'def greet(name):',
        new_text: 'def greet(name: str) -> str:',
      }),
    ),
    reply(planAt(2)),
    reply(
      toolUse('edit_file', {
        path: 'hello.py',
        old_text: 'def greet(name: str) -> str:\n',
        new_text:
          '"""Greets people by name."""\n\n\ndef greet(name: str) -> str:\n    """Return a greeting for `name`."""\n',
      }),
    ),
    reply(planAt(3)),
    reply(
      toolUse('edit_file', {
        path: 'hello.py',
        old_text: 'print(greet("world"))\n',
        new_text: 'if __name__ == "__main__":\n    print(greet("world"))\n',
      }),
    ),
    reply(toolUse('bash', { command: 'python3 hello.py' })),
    reply(planAt(4)),
    reply(
      text(
        'Added type hints to `greet()`, a module docstring and a function docstring, and moved the call under a `__main__` guard. `python3 hello.py` still prints `Hello, world!`.',
      ),
    ),
  ];
}

/** A run on a pull request's head `feature`: one item left, a changelog written, done. */
export function changelogScript(): ScriptStep[] {
  return [
    reply(planAt(3)),
    reply(toolUse('write_file', { path: 'CHANGELOG.md', content: 'Added a changelog.\n' })),
    reply(planAt(4)),
    reply(text('Added CHANGELOG.md.')),
  ];
}

/** Pushes a branch `feature` with one commit of its own on top of main, and returns to main. */
export async function pushFeatureBranch(git: (args: string[]) => Promise<string>): Promise<void> {
  await git(['switch', '-q', '-c', 'feature']);
  await git(['commit', '-q', '--allow-empty', '-m', 'feature work']);
  await git(['push', '-q', 'origin', 'feature']);
  await git(['switch', '-q', 'main']);
}

export const HELLO_RESULT =
  '"""Greets people by name."""\n\n\ndef greet(name: str) -> str:\n    """Return a greeting for `name`."""\n    return "Hello, " + name + "!"\n\nif __name__ == "__main__":\n    print(greet("world"))\n';
