import { z } from 'zod';
import { editFileTool } from '../../../src/agent/tools/edit-file.js';
import { readFileTool } from '../../../src/agent/tools/read-file.js';
import { writeFileTool } from '../../../src/agent/tools/write-file.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TodoManager } from '../../../src/agent/todo/todos.js';
import { createToolbox } from '../../../src/agent/tools/index.js';
import type { ToolContext } from '../../../src/agent/tools/types.js';
import { openWorkspace } from '../../../src/agent/workspace.js';

let context: ToolContext;
beforeAll(async () => {
  const workspace = await openWorkspace(await mkdtemp(join(tmpdir(), 'toolbox-')));
  context = { workspace, bashTimeoutSeconds: 5, env: { PATH: process.env.PATH ?? '' } };
});
afterAll(() => rm(context.workspace, { recursive: true, force: true }));

describe('the toolbox', () => {
  it('offers exactly the five tools, each with an object input schema', () => {
    const toolbox = createToolbox(new TodoManager(), 5);
    expect(toolbox.definitions.map((d) => d.name)).toEqual([
      'bash',
      'read_file',
      'write_file',
      'edit_file',
      'todo',
    ]);
    for (const definition of toolbox.definitions) {
      expect(definition.input_schema.type).toBe('object');
      expect(definition.input_schema).not.toHaveProperty('$schema');
      expect(definition.description.length).toBeGreaterThan(20);
    }
    const todo = toolbox.definitions.find((d) => d.name === 'todo')!;
    expect(JSON.stringify(todo.input_schema)).toContain('activeForm');
    const item = (
      todo.input_schema as unknown as { properties: { items: { items: { properties: object } } } }
    ).properties.items.items;
    expect(item.properties).toMatchObject({
      status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
    });
  });

  it("keeps the TodoManager's own words for a status outside the enum the model sees", async () => {
    const outcome = await createToolbox(new TodoManager(), 5).run(
      'todo',
      { items: [{ text: 'Plan', status: 'done' }] },
      context,
    );
    expect(outcome).toEqual({
      isError: true,
      output: "todo failed: item #1: invalid status 'done' (use pending, in_progress or completed)",
    });
  });

  it("passes bash's exit code on as a field, and none for a tool that runs no command", async () => {
    const toolbox = createToolbox(new TodoManager(), 5);
    expect(await toolbox.run('bash', { command: 'echo out; exit 5' }, context)).toEqual({
      output: 'exit code: 5\nout\n',
      isError: false,
      exitCode: 5,
    });
    const todo = await toolbox.run('todo', { items: [{ text: 'Plan', status: 'pending' }] }, context);
    expect(todo).not.toHaveProperty('exitCode');
    expect(todo).not.toHaveProperty('images');
  });

  it('answers an unknown tool with an error naming the tools that exist', async () => {
    const outcome = await createToolbox(new TodoManager(), 5).run('launch_rocket', {}, context);
    expect(outcome).toEqual({
      isError: true,
      output: expect.stringContaining("unknown tool 'launch_rocket'"),
    });
    expect(outcome.output).toContain('bash, read_file, write_file, edit_file, todo');
  });

  it('answers input that fails the schema with the field and the problem', async () => {
    const outcome = await createToolbox(new TodoManager(), 5).run('write_file', { path: 'a.txt' }, context);
    expect(outcome.isError).toBe(true);
    expect(outcome.output).toMatch(/write_file failed: invalid input: content: /);
  });

  it('passes todo input to the TodoManager, whose refusal names the rule', async () => {
    const todos = new TodoManager();
    const toolbox = createToolbox(todos, 5);
    const refused = await toolbox.run('todo', { items: 'not a list' }, context);
    expect(refused).toEqual({
      isError: true,
      output: "todo failed: items must be an array, got 'not a list'",
    });
    const accepted = await toolbox.run('todo', { items: [{ text: 'Plan', status: 'in_progress' }] }, context);
    expect(accepted).toEqual({ isError: false, output: '[>] #1: Plan\n\n(0/1 completed)' });
    expect(todos.items).toHaveLength(1);
  });

  it('caps a long github answer like bash output, keeping its start and its page note', async () => {
    const long = `issue #1 (open): Big\n${'x'.repeat(200_000)}\n[page 1: 30 comments; read on with page=2]`;
    const asked: unknown[] = [];
    const reader = { answer: async (question: unknown) => (asked.push(question), long) };
    const toolbox = createToolbox(new TodoManager(), 5, { github: reader });
    const outcome = await toolbox.run('github', { what: 'issue', number: 1 }, context);
    expect(outcome.isError).toBe(false);
    expect(outcome.output.length).toBeLessThan(51_000);
    expect(outcome.output.startsWith('issue #1 (open): Big\n')).toBe(true);
    expect(outcome.output.endsWith('[page 1: 30 comments; read on with page=2]')).toBe(true);
    expect(outcome.output).toContain('read one page at a time (page)');
    expect(asked).toEqual([{ what: 'issue', number: 1 }]);
  });
});

describe('tool definitions', () => {
  it('have fixed names and a description on every input field', () => {
    const tools = [readFileTool, writeFileTool, editFileTool];
    expect(tools.map((t) => t.name)).toEqual(['read_file', 'write_file', 'edit_file']);
    const fields: Record<string, string[]> = {
      read_file: ['path', 'offset', 'limit'],
      write_file: ['path', 'content'],
      edit_file: ['path', 'old_text', 'new_text', 'replace_all', 'edits'],
    };
    for (const tool of tools) {
      const schema = z.toJSONSchema(tool.inputSchema) as {
        properties: Record<string, { description?: string }>;
      };
      expect(Object.keys(schema.properties)).toEqual(fields[tool.name]);
      for (const [name, field] of Object.entries(schema.properties)) {
        expect(field.description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
  });

  it('read_file accepts only a positive whole-number limit', () => {
    expect(readFileTool.inputSchema.safeParse({ path: 'a', limit: 0 }).success).toBe(false);
    expect(readFileTool.inputSchema.safeParse({ path: 'a', limit: 2.5 }).success).toBe(false);
    expect(readFileTool.inputSchema.safeParse({ path: 'a', limit: 3 }).success).toBe(true);
  });
});
