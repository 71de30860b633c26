/**
 * A shell line into simple commands (arrays of words), for the install-command parser.
 * `shell-quote` does the quoting, escapes and control operators; a quote-aware pre-pass
 * first does what it does not: newlines split commands, `\`+newline continues a line, `#` starts a
 * comment only at the start of a word (a mid-word `#` is literal), backquotes become `$( )`, and the
 * file-descriptor number of a redirection (`2>&1`) is dropped. Nothing here throws.
 *
 * `$VAR` is kept as typed (the hook does not know the agent's environment). A command substitution
 * `$(...)` or backquotes outside double quotes is read as a command of its own; inside double quotes
 * it stays text. The body of a here-document (`<<WORD`, `<<'WORD'`, `<<"WORD"`, `<<-WORD`) is data,
 * not commands, as it is to the shell: it is dropped, up to its terminator line, and the command that
 * introduced it still counts. A here-string (`<<< word`) is one word of data, dropped likewise.
 */
import { type ParseEntry, parse } from 'shell-quote';

/** Redirections: the word after them is a file (or a here-document tag), never an argument. */
const REDIRECTIONS = new Set(['>', '>>', '<', '>&', '<&', '&>', '&>>', '>|', '<>', '<<<', '<<', '<<-']);

const OPERATOR_CHARS = new Set([';', '&', '|', '(', ')', '<', '>']);

function isBlank(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

interface HereDoc {
  /** The terminator line, quotes and backslashes removed as the shell removes them. */
  delimiter: string;
  /** `<<-`: leading tabs are stripped from the body lines and the terminator. */
  stripTabs: boolean;
}

/**
 * The here-document word at `from` (after `<<` or `<<-` and any blanks): its raw text as typed and the
 * terminator it names, or null when no word follows.
 */
function hereDocWord(s: string, from: number): { end: number; delimiter: string } | null {
  let i = from;
  let delimiter = '';
  while (i < s.length && !isBlank(s[i]!) && !OPERATOR_CHARS.has(s[i]!)) {
    const c = s[i]!;
    if (c === "'") {
      const close = s.indexOf(c, i + 1);
      const end = close === -1 ? s.length : close;
      delimiter += s.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      // Inside double quotes a backslash escapes only `$`, a backquote, `"`, `\` and a newline.
      for (i++; i < s.length && s[i] !== '"'; i++) {
        if (s[i] === '\\' && '$`"\\\n'.includes(s[i + 1] ?? 'x')) i++;
        delimiter += s[i] ?? '';
      }
      i++;
    } else if (c === '\\' && i + 1 < s.length) {
      delimiter += s[i + 1];
      i += 2;
    } else {
      delimiter += c;
      i++;
    }
  }
  return i === from ? null : { end: Math.min(i, s.length), delimiter };
}

/**
 * Whether a line that opens a here-document hands it to a shell as its script (`bash <<EOF`,
 * `cat <<EOF | sh`, `ssh host <<EOF`, `docker exec -i c sh <<EOF`): a shell word of its own, with a
 * path or not, and no `-c` (then the script is the argument and stdin is data).
 */
const SHELL_WORD = /(?:^|[\s|;&(])(?:\S*\/)?(?:ba|z|da|k|a|s)?sh(?=$|[\s|;&)])/;
function feedsAShell(line: string): boolean {
  return SHELL_WORD.test(line) && !/(?:^|\s)-[A-Za-z]*c(?=$|\s)/.test(line);
}

/**
 * Whether the here-document's line writes it to a file (`cat > setup.sh <<EOF`, `tee setup.sh <<EOF`,
 * `cat <<EOF | sudo tee -a setup.sh`) that the rest of the command line then runs (`bash setup.sh`,
 * `sh ./setup.sh`, `. setup.sh`, `source setup.sh`, `./setup.sh`), on its own line or after the body:
 * writing a script and running it is how an agent installs in one step.
 */
function runsWrittenScript(opening: string, rest: string): boolean {
  const runner = `(?:(?:\\S*/)?(?:ba|z|da|k|a)?sh(?:\\s+-[A-Za-z]+)*\\s+|source\\s+|\\.\\s+)(?:\\./)?`;
  const text = `${opening}\n${rest}`;
  return writtenFiles(opening).some((target) => {
    const file = target.replace(/^\.\//, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(?:^|[\\s|;&(])(?:${runner}|\\./)${file}(?=$|[\\s|;&)])`).test(text);
  });
}

/** A word that ends at white space or a shell operator. */
const WORD = '[^\\s|;&<>]+';
const REDIRECT_TARGET = new RegExp(`(?:^|[^<>&\\d])>>?\\s*(${WORD})`, 'g');
/** `tee` (alone, after a pipe or sudo, with a path) and its words up to the next operator. */
const TEE_WORDS = new RegExp(`(?:^|[\\s|;&(])(?:\\S*/)?tee((?:[ \\t]+${WORD})*)`, 'g');

/** The files a here-document's opening line writes: redirection targets and `tee`'s file arguments. */
function writtenFiles(opening: string): string[] {
  const files = [...opening.matchAll(REDIRECT_TARGET)].map((m) => m[1]!);
  for (const m of opening.matchAll(TEE_WORDS)) {
    files.push(...m[1]!.split(/[ \t]+/).filter((w) => w !== '' && !w.startsWith('-')));
  }
  return files.filter((f) => f !== '/dev/null');
}

/** Where the body of each pending here-document ends, read from `from` (the start of the next line). */
function skipHereDocBodies(s: string, from: number, pending: readonly HereDoc[]): number {
  let at = from;
  for (const doc of pending) {
    while (at < s.length) {
      const newline = s.indexOf('\n', at);
      const end = newline === -1 ? s.length : newline;
      const line = s.slice(at, end);
      at = end + 1;
      if ((doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter) break;
    }
  }
  return at;
}

/**
 * Splits the text into logical lines on newlines outside quotes, and rewrites each so `shell-quote`
 * reads it the way a POSIX shell would (see the module comment).
 */
export function logicalLines(text: string): string[] {
  const s = text.replace(/\r\n?/g, '\n');
  const lines: string[] = [];
  let out = '';
  let state: 'none' | 'single' | 'double' | 'ansi' = 'none';
  let wordStart = true;
  let inBackquote = false;
  // Open parentheses of an arithmetic expansion `$(( ))` / `(( ))`, where `<<` is a shift.
  let arithmetic = 0;
  let hereDocs: HereDoc[] = [];
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s[i]!;
    if (state === 'single') {
      out += c;
      if (c === "'") state = 'none';
      continue;
    }
    if (state === 'ansi') {
      out += c;
      if (c === '\\' && i + 1 < n) out += s[++i]!;
      else if (c === "'") state = 'none';
      continue;
    }
    if (state === 'double') {
      if (c === '\\' && s[i + 1] === '\n') {
        i++;
        continue;
      }
      if (c === '\\' && i + 1 < n) {
        out += c + s[++i]!;
        continue;
      }
      if (c === '`') {
        // A command substitution inside double quotes stays text: its output is one word.
        out += c;
        continue;
      }
      out += c;
      if (c === '"') state = 'none';
      continue;
    }
    // Outside any quotes.
    if (c === '\\') {
      if (s[i + 1] === '\n') {
        i++; // line continuation
        continue;
      }
      if (i + 1 < n) {
        out += c + s[++i]!;
        wordStart = false;
      }
      continue;
    }
    if (c === "'") {
      state = 'single';
    } else if (c === '$' && s[i + 1] === "'") {
      state = 'ansi';
      out += "$'";
      i++;
      wordStart = false;
      continue;
    } else if (c === '"') {
      state = 'double';
    } else if (c === '`') {
      out += inBackquote ? ' ) ' : ' $( ';
      inBackquote = !inBackquote;
      wordStart = true;
      continue;
    } else if (c === '\n') {
      lines.push(out);
      out = '';
      wordStart = true;
      inBackquote = false;
      if (hereDocs.length > 0) {
        // Data, unless a shell runs it, now or later: then the body's lines are commands.
        const opening = lines[lines.length - 1]!;
        const end = skipHereDocBodies(s, i + 1, hereDocs);
        if (!feedsAShell(opening) && !runsWrittenScript(opening, s.slice(end))) i = end - 1;
        hereDocs = [];
      }
      continue;
    } else if (c === '<' && s[i + 1] === '<' && arithmetic === 0) {
      if (s[i + 2] === '<') {
        out += '<<<'; // a here-string: its word is dropped as a redirection target
        i += 2;
        wordStart = true;
        continue;
      }
      const stripTabs = s[i + 2] === '-';
      const op = stripTabs ? '<<-' : '<<';
      let j = i + op.length;
      while (s[j] === ' ' || s[j] === '\t') j++;
      const word = hereDocWord(s, j);
      out += op;
      i += op.length - 1;
      wordStart = true;
      if (word !== null) {
        hereDocs.push({ delimiter: word.delimiter, stripTabs });
        out += ` ${s.slice(j, word.end)}`;
        i = word.end - 1;
        wordStart = false;
      }
      continue;
    } else if (c === '(' && (arithmetic > 0 || (s[i + 1] === '(' && (wordStart || s[i - 1] === '$')))) {
      arithmetic++;
    } else if (c === ')' && arithmetic > 0) {
      arithmetic--;
    } else if (c === '#') {
      if (wordStart) {
        const end = s.indexOf('\n', i);
        i = (end === -1 ? n : end) - 1; // the comment runs to the end of the line
        continue;
      }
      out += '\\#';
      continue;
    } else if (wordStart && isDigit(c)) {
      let j = i;
      while (isDigit(s[j])) j++;
      if (s[j] === '<' || s[j] === '>') {
        i = j - 1; // `2>&1`: the descriptor number is not an argument
        continue;
      }
      out += s.slice(i, j);
      i = j - 1;
      wordStart = false;
      continue;
    } else if (isBlank(c) || OPERATOR_CHARS.has(c)) {
      out += c;
      wordStart = true;
      continue;
    }
    out += c;
    wordStart = false;
  }
  lines.push(out);
  return lines.filter((l) => l.trim() !== '');
}

/** Keeps `$VAR` as it was typed: the hook does not know the agent's environment. */
const keepVariable = (key: string): string => `$${key}`;

function shellWords(line: string): Array<ParseEntry | string> {
  try {
    return parse(line, keepVariable);
  } catch {
    // `${}` or an unclosed `${`: read the dollar signs literally instead.
    try {
      return parse(line.replace(/\$/g, '\\$'), keepVariable);
    } catch {
      return line.split(/\s+/).filter((w) => w !== '');
    }
  }
}

/** The simple commands of one logical line, each as its words. */
function commandsOfLine(line: string): string[][] {
  const commands: string[][] = [];
  let current: string[] = [];
  let redirectTarget = false;
  const flush = (): void => {
    if (current.length > 0) commands.push(current);
    current = [];
    redirectTarget = false;
  };
  for (const entry of shellWords(line)) {
    let word: string | null = null;
    if (typeof entry === 'string') {
      word = entry;
    } else if ('comment' in entry) {
      break;
    } else if (entry.op === 'glob') {
      word = (entry as { pattern: string }).pattern;
    } else if (REDIRECTIONS.has(entry.op)) {
      redirectTarget = true;
      continue;
    } else {
      // `;` `&&` `||` `|` `|&` `&` `;;` `(` `)` `<(` `>(` (and anything unknown) end the command.
      flush();
      continue;
    }
    if (redirectTarget) {
      redirectTarget = false;
      continue;
    }
    current.push(word);
  }
  flush();
  return commands;
}

/**
 * The simple commands of a shell line, in order: split on `;`, `&&`, `||`, `|`, `&`, subshell
 * parentheses and newlines outside quotes, redirections removed.
 */
export function simpleCommands(text: string): string[][] {
  const commands: string[][] = [];
  for (const line of logicalLines(text)) {
    for (const command of commandsOfLine(line)) commands.push(command);
  }
  return commands;
}
