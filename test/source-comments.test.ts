import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commentsOf } from './support/source-comments.js';

/**
 * Comments say why the code is as it is, for a reader who has only this repository: an internal
 * issue number is a reference they cannot follow, and the history it stands for belongs in
 * CHANGELOG.md. This reads every comment of every source file (strings and templates aside).
 */

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.data', 'dist', '.wrangler', '.test-template', 'test-data']);
const SOURCE = /\.(ts|tsx|js|cjs|mjs)$/;

/** A reference to an issue by its number: the word, singular or plural, then the number, with or without `#`. */
const ISSUE_NUMBER = /\bissues?\s*#?\d+/i;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : sourceFiles(join(dir, entry.name));
    return SOURCE.test(entry.name) ? [join(dir, entry.name)] : [];
  });
}

/** Every comment line naming an issue number, as `path:line: text`. */
function issueReferences(files: string[]): string[] {
  return files.flatMap((file) => {
    const path = relative(REPO, file).replaceAll('\\', '/');
    return commentsOf(readFileSync(file, 'utf8')).flatMap((comment) =>
      comment.text
        .split('\n')
        .flatMap((text, offset) =>
          ISSUE_NUMBER.test(text) ? [`${path}:${comment.line + offset}: ${text.trim()}`] : [],
        ),
    );
  });
}

const FILES = sourceFiles(REPO);
const REFERENCES = issueReferences(FILES);

describe('source comments', () => {
  it('are read from the real source tree', () => {
    expect(FILES.length).toBeGreaterThan(500);
    expect(FILES.some((file) => file.endsWith(join('platform', 'errors.ts')))).toBe(true);
  });

  it('name no issue number', () => {
    expect(REFERENCES).toEqual([]);
  });
});

describe('the comment reader', () => {
  it('finds line and block comments with the line each starts on', () => {
    const source = ['const a = 1; // one', '/**', ' * two', ' */', 'const b = 2;'].join('\n');
    expect(commentsOf(source)).toEqual([
      { text: '// one', line: 1 },
      { text: '/**\n * two\n */', line: 2 },
    ]);
  });

  it('steps over strings, templates and regular expressions that hold comment markers', () => {
    const source = [
      "const url = 'https://example.test/issue 1';",
      'const quoted = "/* issue 2 */";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal, on purpose
      'const t = `a ${`nested ${{ k: "// issue 3" }.k}`} // issue 4 `;',
      'const r = /\\/\\/ issue 5/g, s = a / b; // real',
      'if (x) return /[/*]/.test(y); /* also real */',
    ].join('\n');
    expect(commentsOf(source).map((c) => c.text)).toEqual(['// real', '/* also real */']);
  });

  it('reports an issue number in a comment, and only there', () => {
    const check = (source: string) => commentsOf(source).filter((comment) => ISSUE_NUMBER.test(comment.text));
    expect(check('// The file store (issue 25): bytes by key.')).toHaveLength(1);
    expect(check('/** Issue 22 item 6: pretrained vectors. */')).toHaveLength(1);
    expect(check("// why it is so\nconst issue = 'issue 25';\nconst issues = [issue];")).toEqual([]);
    expect(check('// each issue of the zod parse names a field')).toEqual([]);
  });
});
