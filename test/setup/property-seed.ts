import fc from 'fast-check';
import { testSeed } from '../helpers/ci.js';

// Property tests draw from the run's seed when there is one (CI, or SVC_TEST_SEED): a failure is
// then replayed by the same seed, and CI never fails on a new draw. Elsewhere each run draws anew,
// and fast-check prints the seed and path of any counterexample it finds.
const seed = testSeed();
if (seed !== undefined) fc.configureGlobal({ seed });
