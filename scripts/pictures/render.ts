// A moment of a demo run as a web page that looks like GitHub's: the Markdown rendered as GitHub-flavoured
// Markdown (task lists, tables, inline HTML such as <sub>, hidden HTML comments) inside a comment box, or a
// pull request's header above its description. The stylesheet beside this file is ours, written to be close
// to GitHub's light theme.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Marked } from 'marked';
import type { Moment, PullRequestView } from './moments.js';

const STYLE = readFileSync(join(import.meta.dirname, 'github.css'), 'utf8');
const markdown = new Marked({ gfm: true });

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** GitHub opens links in the same tab and marks task lists so they lose their bullets; so does this. */
function body(source: string): string {
  const html = markdown.parse(source, { async: false });
  return html
    .replace(/<ul>\n(?=<li><input )/g, '<ul class="contains-task-list">\n')
    .replace(/<li><input /g, '<li class="task-list-item"><input class="task-list-item-checkbox" ');
}

function comment(author: string, source: string): string {
  return `<div class="comment">
  <div class="comment-header"><span class="avatar">🤖</span><strong>${escape(author)}</strong>
    <span class="bot-label">bot</span><span class="muted">commented</span></div>
  <div class="markdown-body">${body(source)}</div>
</div>`;
}

function pullHeader(pull: PullRequestView, author: string): string {
  return `<div class="pull-header">
  <h1>${escape(pull.title)} <span class="muted">#${pull.number}</span></h1>
  <div class="pull-meta"><span class="state-open">Open</span>
    <span><strong>${escape(author)}</strong> wants to merge ${pull.commits} commit${pull.commits === 1 ? '' : 's'} into <code class="branch">${escape(pull.base)}</code>
    from <code class="branch">${escape(pull.head)}</code></span></div>
</div>`;
}

/** The page for one moment; `.frame` is the part the screenshot takes. */
export function pageHtml(moment: Moment, pull: PullRequestView, author: string): string {
  const content =
    moment.name === 'pull-request'
      ? `${pullHeader(pull, author)}\n${comment(author, moment.markdown)}`
      : comment(author, moment.markdown);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(moment.title)}</title>
<style>${STYLE}</style></head>
<body><div class="frame">${content}</div></body></html>`;
}
