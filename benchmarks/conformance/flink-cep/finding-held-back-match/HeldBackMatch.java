// A completed match held back behind an earlier partial match, never emitted at the end of a bounded input (skipPastLastEvent)
// A standalone reproduction with Flink CEP 2.3 (DataStream API, event time); compile and run with the jars of
// a Flink distribution on the class path (flink-dist and flink-cep), e.g.
//   javac -cp "$FLINK_HOME/lib/*:flink-cep.jar" HeldBackMatch.java && java -cp ".:$FLINK_HOME/lib/*:flink-cep.jar" HeldBackMatch
//
// CEQL query:  (none: a Flink CEP pattern)
// As Flink CEP, the pattern below; events carry their position in the stream.
// Expected (the CEQL reference semantics, or Flink's documentation for a native pattern):
//   {c=[R@2]}  (as with noSkip, and as when one more event U follows)
// Flink CEP 2.3 reports:
//   nothing

import java.time.Duration;
import java.util.*;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cep.CEP;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.cep.nfa.aftermatch.AfterMatchSkipStrategy;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.cep.pattern.conditions.SimpleCondition;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

public class HeldBackMatch {
    public static class Ev {
        public int pos; public long ts; public String key; public String type;
        public HashMap<String, Object> attrs = new HashMap<>();
        public Ev() {}
        Ev(int pos, long ts, String key, String type, Object... kv) {
            this.pos = pos; this.ts = ts; this.key = key; this.type = type;
            for (int i = 0; i < kv.length; i += 2) attrs.put((String) kv[i], kv[i + 1]);
        }
        Long num(String a) { Object v = attrs.get(a); return v instanceof Long ? (Long) v : null; }
        String str(String a) { Object v = attrs.get(a); return v instanceof String ? (String) v : null; }
        public String toString() { return type + "@" + pos + attrs; }
    }

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        List<Ev> events = List.of(
            new Ev(0, 0L, "", "T"),
            new Ev(1, 1L, "", "U"),
            new Ev(2, 2L, "", "R"));
        Pattern<Ev, Ev> pattern = Pattern.<Ev>begin("a", AfterMatchSkipStrategy.skipPastLastEvent())
            .where(SimpleCondition.of(e -> (e.type.equals("T")))).optional()
            .followedBy("b")
            .where(SimpleCondition.of(e -> (e.type.equals("R") || e.type.equals("T")))).optional()
            .next("c")
            .where(SimpleCondition.of(e -> (e.type.equals("R"))));
        CEP.pattern(env.fromData(events)
                    .assignTimestampsAndWatermarks(WatermarkStrategy.<Ev>forMonotonousTimestamps()
                        .withTimestampAssigner((e, t) -> e.ts))
                    .keyBy(e -> e.key), pattern)
            .inEventTime()
            .process(new PatternProcessFunction<Ev, String>() {
                @Override public void processMatch(Map<String, List<Ev>> m, Context ctx, Collector<String> out) {
                    out.collect(m.toString());
                }
            })
            .print();
        env.execute("HeldBackMatch");
    }
}
