-- save these lines (without '-- ') as /tmp/rpr_case/rows.csv
-- 0,3,b,0,0,6
-- 0,4,b,1,1,8
CREATE TABLE ev (`cid` INT, `id` INT, `type` STRING, `k` INT, `x` INT, `ts_s` BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_s * 1000, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '/tmp/rpr_case', 'format' = 'csv');
SET 'execution.runtime-mode' = 'streaming';
SELECT * FROM ev MATCH_RECOGNIZE (
  PARTITION BY cid
  ORDER BY ts
  MEASURES FIRST(id) AS first_id, LAST(id) AS last_id
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B{1,2}?)
  WITHIN INTERVAL '2' SECOND
  DEFINE A AS TRUE
);
