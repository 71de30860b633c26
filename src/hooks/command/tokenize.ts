/**
 * A shell line into simple commands (arrays of words), for the install-command parser.
 * `shell-quote` does the quoting, escapes and control operators; a quote-aware pre-pass
 * first does what it does not: newlines split commands, `\`+newline continues a line, `#` starts a
 * comment only at the start of a word (a mid-word `#` is literal), backquotes become `$( )`, and the
 * file-descriptor number of a redirection (`2>&1`) is dropped. Nothing here throws.
 *
 * `$VAR` is kept as typed (the hook does not know the agent's environment). A command substitution
 * `$(...)` or backquotes outside double quotes is read as a command of its own; inside double quotes
 * it stays text. The body of a here-document is read as commands: it is most often a script that a
 * shell will run (`cat > setup.sh <<EOF`), so reading it errs on the side of checking.
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
      continue;
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
