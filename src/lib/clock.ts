// What tells the time: every service takes one (tests pass a clock they move by hand) instead of calling Date.now.
export interface Clock {
  now(): number;
}
