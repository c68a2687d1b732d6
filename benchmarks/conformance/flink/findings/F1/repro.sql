-- save these lines (without '-- ') as /tmp/rpr_case/rows.csv
-- 0,3,b,0,0,4
-- 0,4,a,0,0,5
-- 0,6,b,0,2,8
CREATE TABLE ev (`cid` INT, `id` INT, `type` STRING, `k` INT, `x` INT, `ts_s` BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_s * 1000, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '/tmp/rpr_case', 'format' = 'csv');
SET 'execution.runtime-mode' = 'streaming';
SELECT * FROM ev MATCH_RECOGNIZE (
  PARTITION BY cid, k
  ORDER BY ts
  MEASURES FIRST(id) AS first_id, LAST(id) AS last_id, COUNT(C.x) AS m1
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (A B C)
  WITHIN INTERVAL '4' SECOND
  DEFINE A AS TRUE
);
