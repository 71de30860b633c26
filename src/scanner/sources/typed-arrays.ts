/**
 * A copy of `array` with room for at least `needed` elements: twice the room, or more. The scanner's
 * tables grow this way (blob states, requests held, parent links), never one element at a time.
 */
export function grown<T extends Uint8Array | Int32Array>(array: T, needed = array.length + 1): T {
  const copy = new (array.constructor as new (length: number) => T)(Math.max(array.length * 2, needed));
  copy.set(array);
  return copy;
}
