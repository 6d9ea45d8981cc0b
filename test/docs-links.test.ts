import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GUIDES, GUIDE_SECTION_BY_TAG, guideSectionOf } from '../functions/guides.js';
import { allOperations } from '../functions/modules.js';
import { ERROR_CODES, ERROR_STATUS } from '../platform/errors.js';

/**
 * The documentation a newcomer navigates: a short README and the docs/ tree. Every link must lead
 * somewhere in this repository (a fresh clone holds nothing beside it), every heading a link names
 * must exist, and every error code and every operation must have the page that explains it.
 */

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const README = join(REPO, 'README.md');
const DOCS = join(REPO, 'docs');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return path.endsWith('.md') ? [path] : [];
  });
}

const FILES = [README, ...markdownFiles(DOCS)];
const read = (path: string) => readFileSync(path, 'utf8');
const shown = (path: string) => relative(REPO, path);

/** Each line with whether it sits inside a fenced code block. */
function linesOf(text: string): { line: string; number: number; inCode: boolean }[] {
  let inCode = false;
  return text.split('\n').map((line, i) => {
    const fence = /^\s*```/.test(line);
    const entry = { line, number: i + 1, inCode: inCode || fence };
    if (fence) inCode = !inCode;
    return entry;
  });
}

/** A heading's anchor as GitHub renders it: the text without markup, lowercased, punctuation but `_` and `-` dropped. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { line, inCode } of linesOf(read(path))) {
    const heading = !inCode && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every markdown link target outside code, with where it was written. */
function linksOf(path: string): { target: string; at: string }[] {
  return linesOf(read(path)).flatMap(({ line, number, inCode }) => {
    if (inCode) return [];
    const prose = line.replace(/`[^`]*`/g, '');
    return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({
      target: m[1] ?? '',
      at: `${shown(path)}:${number}`,
    }));
  });
}

/** What is wrong with a link, or null: it must stay in the repository and reach an existing file and heading. */
function brokenLink(from: string, target: string): string | null {
  if (/^(https?:|mailto:)/.test(target)) return null;
  if (target.startsWith('/')) return 'an absolute path';
  const [pathPart = '', anchor] = target.split('#');
  const file = pathPart === '' ? from : resolve(dirname(from), decodeURIComponent(pathPart));
  const inside = relative(REPO, file);
  if (inside.startsWith(`..${sep}`) || inside === '..') return 'a path outside the repository';
  if (!existsSync(file)) return 'a missing file';
  if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor)) return `no heading #${anchor}`;
  return null;
}

describe('the README', () => {
  const lines = read(README).split('\n');

  it('stays at most 300 lines: the rest lives in docs/', () => {
    expect(lines.length).toBeLessThanOrEqual(300);
  });

  it('has no line over 120 characters', () => {
    const long = lines.flatMap((line, i) => (line.length > 120 ? [`README.md:${i + 1} (${line.length})`] : []));
    expect(long).toEqual([]);
  });
});

describe('README.md and docs/', () => {
  it('are found (the checks below read real files)', () => {
    expect(FILES.length).toBeGreaterThan(40);
    expect(FILES.flatMap(linksOf).length).toBeGreaterThan(100);
  });

  it('link only to files and headings that exist in this repository', () => {
    const broken = FILES.flatMap((file) =>
      linksOf(file).flatMap(({ target, at }) => {
        const problem = brokenLink(file, target);
        return problem ? [`${at}: ${target} (${problem})`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('name no place outside the repository, even as text', () => {
    const outside = FILES.flatMap((file) =>
      linesOf(read(file)).flatMap(({ line, number }) =>
        /\.\.\/shared\b|\/work\/|\/tmp\/bash_jobs/.test(line) ? [`${shown(file)}:${number}: ${line.trim()}`] : [],
      ),
    );
    expect(outside).toEqual([]);
  });

  it('keep prose lines under 120 characters (code blocks and tables aside)', () => {
    const long = FILES.flatMap((file) =>
      linesOf(read(file)).flatMap(({ line, number, inCode }) =>
        !inCode && !line.startsWith('|') && line.length > 120 ? [`${shown(file)}:${number} (${line.length})`] : [],
      ),
    );
    expect(long).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('catch a missing file, a missing heading, an absolute path and a path outside the repository', () => {
    const from = join(DOCS, 'README.md');
    expect(brokenLink(from, 'guides/search.md#search')).toBeNull();
    expect(brokenLink(from, 'guides/no-such-guide.md')).toBe('a missing file');
    expect(brokenLink(from, 'guides/search.md#no-such-heading')).toBe('no heading #no-such-heading');
    expect(brokenLink(from, '/etc/hosts')).toBe('an absolute path');
    expect(brokenLink(from, '../../shared/spec/platform-api.md')).toBe('a path outside the repository');
  });

  it('read anchors as GitHub renders them', () => {
    expect(slug('Knowledge: uploads, the knowledge bank, pins and context entries')).toBe(
      'knowledge-uploads-the-knowledge-bank-pins-and-context-entries',
    );
    expect(slug('The OAuth 2.1 authorization server')).toBe('the-oauth-21-authorization-server');
    expect(slug('# `invalid_argument`'.slice(2))).toBe('invalid_argument');
  });
});

describe('the error reference', () => {
  const dir = join(DOCS, 'reference', 'errors');
  const index = read(join(dir, 'README.md'));

  it('has a page for every code of the code table, linked from its index, with the status the table gives', () => {
    const missing = ERROR_CODES.filter((code) => {
      const page = join(dir, `${code}.md`);
      if (!existsSync(page) || !index.includes(`](${code}.md)`)) return true;
      return !read(page).includes(`**HTTP status:** ${ERROR_STATUS[code]}.`);
    });
    expect(missing).toEqual([]);
  });

  it('has no page for a code the table does not hold', () => {
    const pages = readdirSync(dir)
      .filter((name) => name !== 'README.md')
      .map((name) => name.replace(/\.md$/, ''));
    expect(pages.filter((page) => !(ERROR_CODES as string[]).includes(page))).toEqual([]);
  });
});

describe('the guides', () => {
  const guides = join(DOCS, 'guides');

  it('explain every operation: its tag names a guide section', () => {
    const without = allOperations.filter((op) => guideSectionOf(op) === undefined).map((op) => `${op.id} ${op.tags}`);
    expect(without).toEqual([]);
  });

  it('hold every page and section the operations and the service link', () => {
    const broken = [...Object.values(GUIDE_SECTION_BY_TAG), ...GUIDES.map((guide) => guide.page)].flatMap((section) => {
      const problem = brokenLink(join(guides, 'README.md'), section);
      return problem ? [`${section} (${problem})`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('are every file of docs/guides/, each listed in the docs index', () => {
    const docsIndex = read(join(DOCS, 'README.md'));
    const files = readdirSync(guides).sort();
    expect(files).toEqual(GUIDES.map((guide) => guide.page).sort());
    expect(files.filter((page) => !docsIndex.includes(`](guides/${page})`))).toEqual([]);
  });
});
