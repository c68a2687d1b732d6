// The Flink CEP driver of cer_theory's conformance harness (cer_theory/conformance/flink_cep.py).
//
// Compiled at run time with javac against the Flink jars that ship inside the apache-flink Python package, and run
// as one JVM for many cases. It reads JSON lines on stdin: a case per line,
//
//   {"id": 3, "pattern": {...}, "events": [{"pos": 0, "ts": 0, "key": "", "type": "R", "attrs": {"x": 1}}, ...]}
//
// and a line {"run": true} that ends a batch. The batch's cases become ONE Flink job (a bounded source, event-time
// timestamps, a keyed stream and a CEP operator per case; their outputs unioned and collected), and the driver
// answers one line per case, in order, then {"done": N}:
//
//   {"id": 3, "matches": [{"v0": [0], "v1": [2, 3]}, ...]}   (each match: pattern variable -> event positions)
//   {"id": 3, "refused": "..."}                              (Flink refuses the pattern: MalformedPatternException,
//                                                             UnsupportedOperationException "not supported yet")
//   {"id": 3, "error": "..."}                                (the case could not be read, or its job failed)
//
// A job that fails is run again one case per job, so a failure is charged to the case that caused it.
// The pattern is a small JSON AST of Flink's Pattern API (docs/conformance.md, "Flink CEP").

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Serializable;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.cep.CEP;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.cep.nfa.aftermatch.AfterMatchSkipStrategy;
import org.apache.flink.cep.pattern.MalformedPatternException;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.cep.pattern.conditions.SimpleCondition;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

public class CerFlinkCepDriver {

    static final ObjectMapper JSON = new ObjectMapper();

    /** One event of a case's stream: its position in the stream (how a match names it), its event-time timestamp,
     *  its partition key, its type and its attributes (integers as Long, strings as String). */
    public static class Ev implements Serializable {
        public int pos;
        public long ts;
        public String key;
        public String type;
        public HashMap<String, Object> attrs;

        public Ev() {}
    }

    /** A condition over one event (the "where" of a pattern stage), read from JSON. */
    static abstract class Cond implements Serializable {
        abstract boolean test(Ev e);
    }

    static Cond cond(JsonNode n) {
        String op = text(n, "op");
        switch (op) {
            case "true":
                return new Cond() { boolean test(Ev e) { return true; } };
            case "type": {
                List<String> types = new ArrayList<>();
                for (JsonNode t : array(n, "types")) types.add(t.asText());
                return new Cond() { boolean test(Ev e) { return types.contains(e.type); } };
            }
            case "and": case "or": {
                List<Cond> args = new ArrayList<>();
                for (JsonNode a : array(n, "args")) args.add(cond(a));
                boolean and = op.equals("and");
                return new Cond() {
                    boolean test(Ev e) {
                        for (Cond c : args) if (c.test(e) != and) return !and;
                        return and;
                    }
                };
            }
            case "not": {
                Cond arg = cond(field(n, "arg"));
                return new Cond() { boolean test(Ev e) { return !arg.test(e); } };
            }
            case "cmp": {
                String attr = text(n, "attr"), cmp = text(n, "cmp");
                Object value = value(field(n, "value"));
                if (!List.of("=", "!=", "<", "<=", ">", ">=").contains(cmp))
                    throw new IllegalArgumentException("unknown comparison " + cmp);
                return new Cond() {
                    boolean test(Ev e) {
                        Object v = e.attrs.get(attr);
                        if (v == null || v.getClass() != value.getClass()) return false;  // SQL's UNKNOWN is not TRUE
                        @SuppressWarnings("unchecked")
                        int c = ((Comparable<Object>) v).compareTo(value);
                        switch (cmp) {
                            case "=": return c == 0;
                            case "!=": return c != 0;
                            case "<": return c < 0;
                            case "<=": return c <= 0;
                            case ">": return c > 0;
                            default: return c >= 0;
                        }
                    }
                };
            }
            default:
                throw new IllegalArgumentException("unknown condition op " + op);
        }
    }

    static class Where extends SimpleCondition<Ev> {
        final Cond cond;
        Where(Cond cond) { this.cond = cond; }
        @Override public boolean filter(Ev e) { return cond.test(e); }
    }

    static AfterMatchSkipStrategy skip(JsonNode n) {
        if (n == null || n.isNull()) return AfterMatchSkipStrategy.noSkip();
        String kind = text(n, "kind");
        switch (kind) {
            case "noSkip": return AfterMatchSkipStrategy.noSkip();
            case "skipToNext": return AfterMatchSkipStrategy.skipToNext();
            case "skipPastLastEvent": return AfterMatchSkipStrategy.skipPastLastEvent();
            case "skipToFirst": return AfterMatchSkipStrategy.skipToFirst(text(n, "var"));
            case "skipToLast": return AfterMatchSkipStrategy.skipToLast(text(n, "var"));
            default: throw new IllegalArgumentException("unknown skip strategy " + kind);
        }
    }

    /** The Pattern a case's JSON describes: stages in order, each an edge from the one before, a condition and
     *  a quantifier. */
    static Pattern<Ev, Ev> pattern(JsonNode p) {
        Pattern<Ev, Ev> out = null;
        for (JsonNode s : array(p, "stages")) {
            String name = text(s, "name"), edge = text(s, "edge");
            if (out == null) {
                if (!edge.equals("begin")) throw new IllegalArgumentException("the first stage's edge must be begin");
                out = Pattern.<Ev>begin(name, skip(p.get("skip")));
            } else {
                switch (edge) {
                    case "next": out = out.next(name); break;
                    case "followedBy": out = out.followedBy(name); break;
                    case "followedByAny": out = out.followedByAny(name); break;
                    case "notNext": out = out.notNext(name); break;
                    case "notFollowedBy": out = out.notFollowedBy(name); break;
                    default: throw new IllegalArgumentException("unknown edge " + edge);
                }
            }
            out = out.where(new Where(cond(field(s, "where"))));
            JsonNode q = s.get("quantifier");
            if (q != null && !q.isNull()) {
                int min = q.get("min").asInt();
                JsonNode max = q.get("max");
                if (max == null || max.isNull()) out = min == 1 ? out.oneOrMore() : out.timesOrMore(min);
                else if (max.asInt() == min) out = out.times(min);
                else out = out.times(min, max.asInt());
                String inner = q.has("inner") ? q.get("inner").asText() : "relaxed";
                if (inner.equals("consecutive")) out = out.consecutive();
                else if (inner.equals("allowCombinations")) out = out.allowCombinations();
                else if (!inner.equals("relaxed")) throw new IllegalArgumentException("unknown inner " + inner);
            }
            if (s.has("optional") && s.get("optional").asBoolean()) out = out.optional();
            if (s.has("greedy") && s.get("greedy").asBoolean()) out = out.greedy();
        }
        if (out == null) throw new IllegalArgumentException("a pattern needs at least one stage");
        JsonNode within = p.get("within");
        if (within != null && !within.isNull()) out = out.within(Duration.ofMillis(within.asLong()));
        return out;
    }

    static List<Ev> events(JsonNode c) {
        List<Ev> out = new ArrayList<>();
        for (JsonNode n : array(c, "events")) {
            Ev e = new Ev();
            e.pos = field(n, "pos").asInt();
            e.ts = field(n, "ts").asLong();
            e.key = text(n, "key");
            e.type = text(n, "type");
            e.attrs = new HashMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = field(n, "attrs").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> a = it.next();
                e.attrs.put(a.getKey(), value(a.getValue()));
            }
            out.add(e);
        }
        return out;
    }

    static Object value(JsonNode v) {
        if (v.isIntegralNumber()) return v.asLong();
        if (v.isTextual()) return v.asText();
        throw new IllegalArgumentException("attribute values are integers or strings, not " + v);
    }

    static JsonNode field(JsonNode n, String name) {
        JsonNode v = n.get(name);
        if (v == null || v.isNull()) throw new IllegalArgumentException("missing field " + name);
        return v;
    }

    static String text(JsonNode n, String name) {
        JsonNode v = field(n, name);
        if (!v.isTextual()) throw new IllegalArgumentException("field " + name + " must be a string");
        return v.asText();
    }

    static Iterable<JsonNode> array(JsonNode n, String name) {
        JsonNode v = field(n, name);
        if (!v.isArray()) throw new IllegalArgumentException("field " + name + " must be an array");
        return v;
    }

    /** A case ready to run: its id, its Pattern and events (both checked before any job runs). */
    static class Ready {
        final long id;
        final Pattern<Ev, Ev> pattern;
        final List<Ev> events;
        Ready(long id, Pattern<Ev, Ev> pattern, List<Ev> events) { this.id = id; this.pattern = pattern; this.events = events; }
    }

    /** Each match as one JSON line: {"id": case, "m": {variable: [positions]}}. */
    static class Emit extends PatternProcessFunction<Ev, String> {
        final long id;
        Emit(long id) { this.id = id; }
        @Override public void processMatch(Map<String, List<Ev>> match, Context ctx, Collector<String> out) throws Exception {
            ObjectNode m = JSON.createObjectNode();
            for (Map.Entry<String, List<Ev>> v : match.entrySet()) {
                ArrayNode ps = m.putArray(v.getKey());
                for (Ev e : v.getValue()) ps.add(e.pos);
            }
            ObjectNode line = JSON.createObjectNode();
            line.put("id", id);
            line.set("m", m);
            out.collect(JSON.writeValueAsString(line));
        }
    }

    static final TypeInformation<Ev> EV = TypeInformation.of(Ev.class);

    /** One job over every case of ``batch``: answers by case id (in the order Flink emitted them). */
    static Map<Long, ArrayNode> runJob(List<Ready> batch) throws Exception {
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(Configuration.fromMap(Map.of(
            "execution.target", "remote", "rest.address", cluster.getHost(), "rest.port",
            Integer.toString(cluster.getPort()), "parallelism.default", "1")));
        DataStream<String> all = null;
        for (Ready r : batch) {
            DataStream<Ev> source = env.fromData(r.events, EV)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Ev>forMonotonousTimestamps()
                    .withTimestampAssigner((SerializableTimestampAssigner<Ev>) (e, t) -> e.ts));
            DataStream<String> matches = CEP.pattern(source.keyBy(new KeySelector<Ev, String>() {
                    @Override public String getKey(Ev e) { return e.key; }
                }, Types.STRING), r.pattern).inEventTime().process(new Emit(r.id), Types.STRING);
            all = all == null ? matches : all.union(matches);
        }
        Map<Long, ArrayNode> out = new HashMap<>();
        for (Ready r : batch) out.put(r.id, JSON.createArrayNode());
        try (CloseableIterator<String> it = all.executeAndCollect("cer_theory flink-cep batch")) {
            while (it.hasNext()) {
                JsonNode line = JSON.readTree(it.next());
                out.get(line.get("id").asLong()).add(line.get("m"));
            }
        }
        return out;
    }

    static String message(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = root.getClass().getName() + ": " + root.getMessage();
        return m.length() > 400 ? m.substring(0, 400) : m;
    }

    static void answerBatch(List<JsonNode> lines, PrintStream out) {
        Map<Integer, ObjectNode> answers = new LinkedHashMap<>();
        List<Ready> ready = new ArrayList<>();
        Map<Long, Integer> index = new HashMap<>();
        for (int k = 0; k < lines.size(); k++) {
            JsonNode c = lines.get(k);
            ObjectNode a = JSON.createObjectNode();
            long id = c.has("id") ? c.get("id").asLong() : -1;
            a.put("id", id);
            answers.put(k, a);
            try {
                if (c.has("unreadable")) throw new IllegalArgumentException("the line is not JSON: " + c.get("unreadable").asText());
                if (!c.has("id") || !c.get("id").isIntegralNumber()) throw new IllegalArgumentException("missing integer field id");
                if (index.containsKey(id)) throw new IllegalArgumentException("a batch has two cases with id " + id);
                List<Ev> evs = events(c);
                Pattern<Ev, Ev> p = pattern(field(c, "pattern"));
                ready.add(new Ready(id, p, evs));
                index.put(id, k);
            } catch (MalformedPatternException | UnsupportedOperationException e) {
                a.put("refused", message(e));  // Flink does not accept this pattern
            } catch (Exception e) {
                a.put("error", "the driver cannot read the case: " + message(e));
            }
        }
        if (!ready.isEmpty()) {
            try {
                Map<Long, ArrayNode> got = runJob(ready);
                for (Ready r : ready) answers.get(index.get(r.id)).set("matches", got.get(r.id));
            } catch (Exception batchFailure) {
                for (Ready r : ready) {  // charge the failure to the case that causes it
                    ObjectNode a = answers.get(index.get(r.id));
                    try {
                        a.set("matches", runJob(List.of(r)).get(r.id));
                    } catch (MalformedPatternException e) {
                        a.put("refused", message(e));
                    } catch (Exception e) {
                        a.put("error", "the job failed: " + message(e));
                    }
                }
            }
        }
        for (ObjectNode a : answers.values()) out.println(a.toString());
        out.println("{\"done\": " + lines.size() + "}");
        out.flush();
    }

    /** The one in-process cluster every batch's job runs on: a job on a fresh local environment would start a
     *  cluster of its own, which costs seconds. Its REST endpoint listens on the loopback interface only. */
    static URI cluster;

    static MiniCluster startCluster() throws Exception {
        Configuration conf = Configuration.fromMap(Map.of(
            "rest.address", "127.0.0.1", "rest.bind-address", "127.0.0.1", "rest.port", "0",
            "jobmanager.bind-host", "127.0.0.1", "taskmanager.bind-host", "127.0.0.1",
            "taskmanager.host", "127.0.0.1", "jobmanager.rpc.address", "127.0.0.1"));
        MiniCluster mini = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
            .setCommonBindAddress("127.0.0.1").setNumTaskManagers(1).setNumSlotsPerTaskManager(1).build());
        mini.start();
        cluster = mini.getRestAddress().get();
        return mini;
    }

    public static void main(String[] args) throws Exception {
        // Flink's own messages go to stderr (the logger); stdout carries answers only.
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        System.setOut(new PrintStream(System.err, true, "UTF-8"));
        MiniCluster mini = startCluster();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<JsonNode> batch = new ArrayList<>();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode n;
            try {
                n = JSON.readTree(line);
            } catch (Exception e) {
                n = JSON.createObjectNode().put("unreadable", message(e));
            }
            if (n.has("run")) {
                answerBatch(batch, out);
                batch = new ArrayList<>();
            } else {
                batch.add(n);
            }
        }
        if (!batch.isEmpty()) answerBatch(batch, out);
        mini.close();
    }
}
