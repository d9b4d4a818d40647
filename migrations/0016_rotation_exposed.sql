-- The tasks of the source set that were exposed (sent to a hosted endpoint or a standard-track
-- model, docs/data.md "Exposed tasks") when a rotation was made: the rotation replaces them
-- first. Kept with the rotation as an input of its plan, and shown once the set retires beside
-- its seed, so that anyone can redo the plan. NULL for rotations made before this migration
-- (none of them replaced exposed tasks first).
ALTER TABLE task_sets ADD COLUMN rotation_exposed TEXT[];
