import { describe, expect, it } from 'vitest';
import { logicalLines, simpleCommands } from './tokenize.js';

describe('logicalLines', () => {
  it.each([
    ['a\nb', ['a', 'b']],
    ['a\r\nb\rc', ['a', 'b', 'c']],
    ['a \\\nb', ['a b']],
    ['"a\nb"', ['"a\nb"']],
    ["'a\nb' c", ["'a\nb' c"]],
    ['# all comment\nnpm i x', ['npm i x']],
    ['npm i x # trailing', ['npm i x ']],
    ['npm i a#b', ['npm i a\\#b']],
    ['echo "a # b"', ['echo "a # b"']],
    ['npm i x 2>&1', ['npm i x >&1']],
    ['npm i 2 x', ['npm i 2 x']],
    ['echo `npm i x`', ['echo  $( npm i x ) ']],
    ['echo "`npm i x`"', ['echo "`npm i x`"']],
    ["echo $'a\\'b\n' c", ["echo $'a\\'b\n' c"]],
    ["cat <<'EOF' > f\nnpm i x\nEOF\nls", ["cat << 'EOF' > f", 'ls']],
    ['a <<-\tEOF\n\tbody\n\tEOF\nb', ['a <<- EOF', 'b']],
    ['a <<"E\\"F"\nbody\nE"F\nb', ['a << "E\\"F"', 'b']],
    ['a <<x <<y\n1\nx\n2\ny\nb', ['a << x << y', 'b']],
    ['a <<< w\nb', ['a <<< w', 'b']],
    ['\n\n  \n', []],
  ])('%j', (text, lines) => {
    expect(logicalLines(text)).toEqual(lines);
  });
});

describe('simpleCommands', () => {
  it.each([
    ['a b; c && d || e | f & g', [['a', 'b'], ['c'], ['d'], ['e'], ['f'], ['g']]],
    ['(a; b) |& c', [['a'], ['b'], ['c']]],
    ['a "b; c" \'d && e\'', [['a', 'b; c', 'd && e']]],
    ['a > out b 2>>err < in c', [['a', 'b', 'c']]],
    ['a <<< "text" b', [['a', 'b']]],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    ['a $HOME "${X}y" \'$Z\'', [['a', '$HOME', '$Xy', '$Z']]],
    ['a b\\ c', [['a', 'b c']]],
    ['a *.js', [['a', '*.js']]],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    ['a ${} b', [['a', '${}', 'b']]],
    ['diff <(a) <(b)', [['diff'], ['a'], ['b']]],
  ])('%j', (text, commands) => {
    expect(simpleCommands(text)).toEqual(commands);
  });
});
