-- The process that may write a game in scale-out mode: a fencing token. A process taking a
-- game over sets it before loading the game; every later write checks it under the row's
-- lock, so a process that stalled past its lease cannot write the game beside its new owner
-- (docs/scaling.md, "Failover"). NULL: written by any process (a game nobody took over yet).
ALTER TABLE games ADD COLUMN owner TEXT;
