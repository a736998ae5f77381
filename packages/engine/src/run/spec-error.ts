/** A RunSpec refused before anything launched; the message names the bound and the value. */
export class RunSpecError extends Error {
  override readonly name = 'RunSpecError';
}
