-- A vendor may withdraw a completed submission from the board: its leaderboard row goes, and
-- the submission stays, with when it was withdrawn, for the operator. A withdrawn submission
-- is never ranked again (a rescore leaves it off the board).
ALTER TABLE submissions ADD COLUMN withdrawn_at timestamptz;
