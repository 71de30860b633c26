import { describe, expect, it } from 'vitest';
import { parseRepositoryParam } from './repository-name.js';

describe('parseRepositoryParam: GitHub, repo=<owner>/<name>', () => {
  it.each([
    ['octo/hello', 'octo/hello'],
    ['Octo-Org/hello.world_2', 'Octo-Org/hello.world_2'],
    ['  octo/hello  ', 'octo/hello'],
    ['a/b', 'a/b'],
    ['octo/.github', 'octo/.github'],
    ['octo/..x', 'octo/..x'],
    [undefined, null],
    ['', null],
    ['   ', null],
    ['octo', null],
    ['octo/', null],
    ['/hello', null],
    ['octo/hello/extra', null],
    ['octo//hello', null],
    ['./hello', null],
    ['octo/..', null],
    ['../hello', null],
    ['octo/hel lo', null],
    ['octo/hello?x=1', null],
    ['octo/hello%2F', null],
    ['octo\\hello', null],
    ['https://github.com/octo/hello', null],
    ['octo/héllo', null],
    [`octo/${'a'.repeat(101)}`, null],
  ])('%j → %j', (value, expected) => {
    expect(parseRepositoryParam('a', value)).toBe(expected);
  });
});

describe('parseRepositoryParam: GitLab, codehostb_project=<group>/<project>', () => {
  it.each([
    ['group/project', 'group/project'],
    ['group/sub/project', 'group/sub/project'],
    ['group/sub/deeper/project.name_1-x', 'group/sub/deeper/project.name_1-x'],
    [' group/project ', 'group/project'],
    ['_group/.project', '_group/.project'],
    [`${Array.from({ length: 21 }, (_, i) => `g${i}`).join('/')}/project`, expect.any(String)],
    [undefined, null],
    ['', null],
    ['project', null],
    ['group/', null],
    ['/project', null],
    ['group//project', null],
    ['group/../project', null],
    ['group/./project', null],
    ['-group/project', null],
    ['group/-project', null],
    ['group/project.git', null],
    ['group/project.atom', null],
    ['group/pro ject', null],
    ['group/project#x', null],
    ['group%2Fproject', null],
    [`${Array.from({ length: 22 }, (_, i) => `g${i}`).join('/')}/project`, null],
  ])('%j → %j', (value, expected) => {
    expect(parseRepositoryParam('b', value)).toEqual(expected);
  });
});
