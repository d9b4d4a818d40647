-- A retired set reveals only the tasks no live set still holds: rotation keeps most
-- of a month in the next one, so retiring month N while N+1 is live would otherwise publish
-- most of N+1. A task held by a private draft or active set stays sealed in every retired set
-- that holds it too, and is written in clear when the last set holding it retires.

-- Whether a private draft or active set other than set $2 holds task $1. Kept tasks
-- keep their id across months (fresh ones carry their month in it), so the id names the task.
CREATE FUNCTION task_held_live(TEXT, TEXT) RETURNS BOOLEAN
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT 1 FROM set_tasks t JOIN task_sets s ON s.id = t.set_id
        WHERE t.task_id = $1 AND s.id <> $2
          AND s.state IN ('draft', 'active') AND NOT s.public)
$$;

CREATE INDEX set_tasks_by_task ON set_tasks (task_id);
