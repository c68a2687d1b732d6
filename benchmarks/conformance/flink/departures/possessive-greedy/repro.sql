-- save these lines (without '-- ') as /tmp/rpr_case/rows.csv
-- 0,0,a,0,1,1
-- 0,1,a,0,1,2
-- 0,2,a,0,3,3
-- 0,3,a,0,0,4
-- 0,4,a,0,1,5
-- 0,5,a,0,1,6
-- 0,6,a,0,2,7
-- 0,7,a,0,0,8
CREATE TABLE ev (`cid` INT, `id` INT, `type` STRING, `k` INT, `x` INT, `ts_s` BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_s * 1000, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '/tmp/rpr_case', 'format' = 'csv');
SET 'execution.runtime-mode' = 'streaming';
SELECT * FROM ev MATCH_RECOGNIZE (
  PARTITION BY cid
  ORDER BY ts
  MEASURES FIRST(id) AS first_id, LAST(id) AS last_id
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (B+ C)
  DEFINE B AS x > 0, C AS x >= LAST(B.x)
);
