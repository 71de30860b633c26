import type { File, Test } from '@vitest/runner';
import type { Reporter, Vitest } from 'vitest/node';

/**
 * Makes a test file that failed to load count as a failed test, for Stryker only.
 *
 * Stryker's Vitest runner builds its verdict from the tests Vitest collected, and a file whose
 * imports throw collects none, so a mutant that stops a module from loading (a rule table emptied,
 * a lookup map built from undefined) is scored "survived" although every test of the file fails
 * (stryker-js#6150, open in 9.6.1). This reporter adds one failed test to each such file, carrying
 * the load error, before the runner reads the results.
 */
export class LoadFailureReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(): void {
    for (const file of this.vitest?.state.getFiles() ?? []) {
      if (file.result?.state === 'fail' && !hasTests(file)) file.tasks.push(loadFailure(file));
    }
  }
}

function hasTests(suite: File | Test | File['tasks'][number]): boolean {
  return suite.type === 'test' || ('tasks' in suite && suite.tasks.some(hasTests));
}

function loadFailure(file: File): Test {
  return {
    type: 'test',
    id: `${file.id}_load`,
    name: 'the module loads',
    fullName: `${file.name} > the module loads`,
    fullTestName: 'the module loads',
    mode: 'run',
    file,
    suite: file,
    meta: {},
    context: undefined as never,
    annotations: [],
    artifacts: [],
    timeout: 0,
    result: { state: 'fail', errors: file.result?.errors ?? [] },
  } as Test;
}
