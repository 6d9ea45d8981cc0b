import type { Child } from 'hono/jsx';

/**
 * The little markdown an agent's answer is written in (headings, bullet and numbered lists,
 * paragraphs, **bold**, *italic*, `code`), rendered as JSX elements: every piece of text goes
 * through JSX escaping, so nothing in an answer can become markup or script on the page.
 */
export function Markdown(props: { text: string }) {
  return <>{blocksOf(props.text)}</>;
}

function blocksOf(text: string): Child[] {
  const out: Child[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let paragraph: string[] = [];
  let list: { ordered: boolean; items: string[] } | null = null;
  const flushParagraph = () => {
    if (paragraph.length) out.push(<p>{inline(paragraph.join(' '))}</p>);
    paragraph = [];
  };
  const flushList = () => {
    if (list) {
      const items = list.items.map((item) => <li>{inline(item)}</li>);
      out.push(list.ordered ? <ol>{items}</ol> : <ul>{items}</ul>);
    }
    list = null;
  };
  for (const line of lines) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*•]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const quoted = /^>\s?(.*)$/.exec(line);
    if (quoted) {
      flushParagraph();
      flushList();
      out.push(<blockquote>{inline(quoted[1] ?? '')}</blockquote>);
    } else if (heading) {
      flushParagraph();
      flushList();
      // The page's own h1/h2 come first: an answer's headings start at h3 (# and ## alike).
      const level = Math.min(5, Math.max(3, (heading[1] ?? '#').length + 1));
      const body = inline(heading[2] ?? '');
      out.push(level === 3 ? <h3>{body}</h3> : level === 4 ? <h4>{body}</h4> : <h5>{body}</h5>);
    } else if (bullet || numbered) {
      flushParagraph();
      const ordered = Boolean(numbered);
      if (list && list.ordered !== ordered) flushList();
      list ??= { ordered, items: [] };
      list.items.push((bullet?.[1] ?? numbered?.[1] ?? '').trim());
    } else if (line.trim() === '') {
      flushParagraph();
      flushList();
    } else {
      flushList();
      paragraph.push(line.trim());
    }
  }
  flushParagraph();
  flushList();
  return out;
}

/** `**bold**`, `*italic*` / `_italic_` and `` `code` ``, left to right; anything else stays text. */
function inline(text: string): Child[] {
  const out: Child[] = [];
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`|(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])|(?<!\w)_([^_\s][^_]*)_(?!\w)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const at = match.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    if (match[1] !== undefined) out.push(<strong>{match[1]}</strong>);
    else if (match[2] !== undefined) out.push(<code>{match[2]}</code>);
    else out.push(<em>{match[3] ?? match[4]}</em>);
    last = at + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
