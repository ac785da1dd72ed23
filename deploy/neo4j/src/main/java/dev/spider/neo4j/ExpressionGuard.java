package dev.spider.neo4j;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

import org.neo4j.cypher.internal.evaluator.StaticEvaluation;
import org.neo4j.cypher.internal.runtime.QueryContext;
import org.neo4j.cypher.internal.runtime.interpreted.pipes.QueryState;
import org.neo4j.exceptions.InvalidArgumentException;
import org.neo4j.values.AnyValue;
import org.neo4j.values.storable.TextValue;
import org.neo4j.values.virtual.ListValue;
import org.neo4j.values.virtual.MapValue;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * A Java agent that makes Neo4j stop a Cypher expression once its transaction is terminated (its timeout, a
 * client's cancel, {@code TERMINATE TRANSACTIONS}).
 *
 * <p>Neo4j checks termination cooperatively, between rows: an operator asks the transaction whether it is still
 * open (the slotted runtime's UNWIND does, per row), an expression never does. Neo4j Community evaluates every
 * expression with the interpreted classes of {@code org.neo4j.cypher.internal.runtime.interpreted.commands} (it has
 * no compiled expressions): {@code ReduceFunction.compute}, {@code ExtractFunction.compute} (list comprehensions),
 * {@code FilterFunction} and the list predicates loop over their list without asking, so
 * {@code RETURN reduce(s = '', x IN range(1, 400000) | s + 'aaaaaaaaaa')} ran for minutes past its timeout and
 * past its client's cancel. Each turn of such a loop evaluates an expression or a predicate, so this agent puts
 * the check Neo4j's operators make at the start of every evaluation: every method of those classes (and of the
 * slotted runtime's expressions) that is given the query's {@link QueryState}. The check reads one volatile field.
 *
 * <p>Those loops also build in one go: a list comprehension allocates an array the size of its list before its first
 * element ({@code RETURN size([x IN range(1, 1000000000) | 1])} ran the heap out in 0.4 s, and
 * {@code -XX:+ExitOnOutOfMemoryError} ended the server), and no memory limit of Neo4j counts what an expression
 * builds. So a list that an expression walks (every {@code makeTraversable} of those classes: reduce, list
 * comprehensions and filters, any/all/none/single) may hold at most {@link #MAX_LIST} elements; Neo4j's own
 * "Cannot populate list values larger than" error refuses a longer one before anything is built.
 *
 * <p>Many lists each under that limit, or a string doubled a few times, still filled the heap. So what the
 * expressions of one statement build is charged to one account per statement ({@link #MAX_BUILT} bytes, Neo4j's
 * own {@code estimatedHeapUsage()} of each value): the string, list or map every building expression returns
 * ({@link #BUILDERS}: +, ||, string functions, filters, coll.*, literals, COLLECT), every element a list
 * comprehension keeps, and, before they build, what replace(), split() and normalize() would build; values under
 * {@link #SMALL}, and comprehensions that kept less, are not charged (they are counted where they are kept). Past the
 * limit the statement is refused with Neo4j's InvalidArgumentException (a client error: drivers do not retry it).
 * The same bytes go to the transaction's memory tracker, so that Neo4j's global pool for transactions
 * ({@code dbms.memory.transaction.total.max}, 70% of the heap) counts them across concurrent statements too.
 */
public final class ExpressionGuard {
    // A string, not QueryState.class: premain must load no Neo4j class before the transformer is in place.
    private static final String QUERY_STATE = "Lorg/neo4j/cypher/internal/runtime/interpreted/pipes/QueryState;";
    private static final String LIST_VALUE = "Lorg/neo4j/values/virtual/ListValue;";
    private static final String ANY_VALUE = "Lorg/neo4j/values/AnyValue;";
    private static final String GUARD = "dev/spider/neo4j/ExpressionGuard";
    private static final String EXPRESSIONS = "org/neo4j/cypher/internal/runtime/interpreted/commands/expressions/";
    /** The loop that keeps what its expression returns each turn: a list comprehension, charged per element. */
    private static final java.util.Set<String> KEEPERS = java.util.Set.of("ExtractFunction");
    /** The expressions that build a string or a list (map) from their arguments: their result is charged. */
    private static final java.util.Set<String> BUILDERS = java.util.Set.of(
            "Add", "Concatenate", "StringInterpolation", "FilterFunction",
            "SplitFunction", "ReplaceFunction", "StringRegexReplaceFunction", "LiteralStringRegexReplaceFunction",
            "StringJoinFunction", "ToUpperFunction", "ToLowerFunction", "NormalizeFunction", "FormatFunction",
            "ReverseFunction", "SubstringFunction", "LeftFunction", "RightFunction", "TrimFunction", "LTrimFunction",
            "RTrimFunction", "BTrimFunction", "ToStringFunction", "ToStringOrNullFunction", "ToStringListFunction",
            "ToIntegerListFunction", "ToFloatListFunction", "ToBooleanListFunction", "CollSortFunction",
            "CollDistinctFunction", "CollFlattenFunction", "CollInsertFunction", "CollRemoveFunction", "ListSlice",
            "Tail", "ListLiteral", "LiteralMap", "DesugaredMapProjection", "NestedPipeCollectExpression",
            "KeysFunction", "LabelsFunction", "NodesFunction", "RelationshipFunction", "PropertiesFunction");
    private static final String[] GUARDED_PACKAGES = {
        "org/neo4j/cypher/internal/runtime/interpreted/commands/",
        "org/neo4j/cypher/internal/runtime/slotted/expressions/",
    };
    /** The most elements one list an expression walks may hold: 10 million take about 0.3 GB as a new list. */
    static final long MAX_LIST = 10_000_000;
    /**
     * The most bytes (Neo4j's own estimates, {@code estimatedHeapUsage()}) the expressions of one statement may
     * build: strings, lists and maps they return, every element a comprehension keeps and every value reduce
     * passes on. With the 2 GB heap, this much kept plus the copies of the step that crosses it stays far below
     * what the server has free (deploy/neo4j/README.md has the measurements).
     */
    static final long MAX_BUILT = 256L << 20;
    /** Values below this (Neo4j's estimate) are not charged, nor are list comprehensions that keep less. */
    static final long SMALL = 64L << 10;
    /** Bytes charged for each piece split() makes: a String and its StringValue. */
    private static final long PIECE = 64;
    private static volatile boolean installed;

    private ExpressionGuard() {}

    public static void premain(String args, Instrumentation instrumentation) {
        instrumentation.addTransformer(new Transformer());
        installed = true;
    }

    /** Whether the JVM was started with this agent ({@code -javaagent:spider-neo4j-launcher.jar}). */
    static boolean installed() {
        return installed;
    }

    /**
     * Throws Neo4j's own TransactionTerminatedException (with the reason: timed out, terminated) if the query's
     * transaction was terminated. Expressions folded while planning have no transaction and are not checked.
     */
    public static void check(QueryState state) {
        QueryContext query = state == null ? null : state.query();
        if (query != null && !(query instanceof StaticEvaluation.EmptyQueryContext)) {
            query.transactionalContext().assertTransactionOpen();
        }
    }

    /** Refuses a list longer than {@link #MAX_LIST} that an expression is about to walk. */
    public static void bound(ListValue list) {
        long size = list.actualSize();
        if (size > MAX_LIST) {
            throw InvalidArgumentException.listTooLarge(size, MAX_LIST);
        }
    }

    /**
     * Charges a string, list or map an expression built to its transaction's memory tracker (Neo4j's own account
     * of a transaction's heap, limited by {@code db.memory.transaction.max} and the global pool), which refuses it
     * with Neo4j's own memory-limit error once the transaction's expressions have built too much. The charge is
     * never given back before the transaction ends: an account of what the query built, not of what it holds.
     */
    public static void built(Object value, QueryState state) {
        if (value instanceof TextValue || value instanceof ListValue || value instanceof MapValue) {
            chargeLarge(((AnyValue) value).estimatedHeapUsage(), state);
        }
    }

    /** Charges an element a list comprehension keeps, whatever its type, as it is kept. */
    public static void kept(AnyValue value, QueryState state) {
        if (value != null) {
            charge(value.estimatedHeapUsage(), state);
        }
    }

    /** {@code replace()} allocates its whole result in one go: refused before that if it would be too large. */
    public static AnyValue replace(AnyValue original, AnyValue search, AnyValue replacement, QueryState state) {
        precharge(original, search, replacement, state);
        return org.neo4j.cypher.operations.CypherFunctions.replace(original, search, replacement);
    }

    public static AnyValue replace(AnyValue original, AnyValue search, AnyValue replacement, AnyValue cache,
            QueryState state) {
        precharge(original, search, replacement, state);
        return org.neo4j.cypher.operations.CypherFunctions.replace(original, search, replacement, cache);
    }

    private static void precharge(AnyValue original, AnyValue search, AnyValue replacement, QueryState state) {
        if (original instanceof TextValue text && search instanceof TextValue from
                && replacement instanceof TextValue to) {
            String value = text.stringValue();
            String target = from.stringValue();
            long matches = target.isEmpty() ? value.length() + 1L : occurrences(value, target);
            long length = value.length() + matches * (to.stringValue().length() - (long) target.length());
            chargeLarge(2 * Math.max(0, length), state); // chars of a UTF-16 string, at most 2 bytes each
        }
    }

    /** {@code split()} builds one string per piece in one go: refused before that if there would be too many. */
    public static AnyValue split(AnyValue original, AnyValue separator, QueryState state) {
        if (original instanceof TextValue text) {
            String value = text.stringValue();
            long pieces = separator instanceof TextValue by && !by.stringValue().isEmpty()
                    ? occurrences(value, by.stringValue()) + 1 : value.length() + 1L;
            chargeLarge(pieces * PIECE + 2L * value.length(), state);
        }
        return org.neo4j.cypher.operations.CypherFunctions.split(original, separator);
    }

    /** {@code normalize()}: Unicode lets one character become up to 18 (NFKC), so that much is charged first. */
    public static AnyValue normalize(AnyValue input, QueryState state) {
        if (input instanceof TextValue text) {
            chargeLarge(2L * 18 * text.stringValue().length(), state);
        }
        return org.neo4j.cypher.operations.CypherFunctions.normalize(input);
    }

    public static AnyValue normalize(AnyValue input, AnyValue form, QueryState state) {
        if (input instanceof TextValue text) {
            chargeLarge(2L * 18 * text.stringValue().length(), state);
        }
        return org.neo4j.cypher.operations.CypherFunctions.normalize(input, form);
    }

    private static long occurrences(String value, String target) {
        long count = 0;
        for (int at = value.indexOf(target); at >= 0; at = value.indexOf(target, at + target.length())) {
            count++;
        }
        return count;
    }

    /** A value smaller than {@link #SMALL} is not charged: alone it is harmless, and kept it is counted. */
    private static void chargeLarge(long bytes, QueryState state) {
        if (bytes >= SMALL) {
            charge(bytes, state);
        }
    }

    /** A list comprehension starts: what it keeps is counted from here. */
    public static void enter(QueryState state) {
        QueryContext query = state == null ? null : state.query();
        if (query == null || query instanceof StaticEvaluation.EmptyQueryContext) {
            return;
        }
        Account account = account(query);
        if (account.depth >= 0 && account.depth < account.marks.length) {
            account.marks[account.depth] = account.bytes;
        }
        account.depth++;
    }

    /**
     * A list comprehension returns: if all it kept came to less than {@link #SMALL}, the charge is given back (the
     * list is small; kept in a larger one, it is charged there), so that small lists built on each of many rows
     * cost nothing.
     */
    public static void leave(QueryState state) {
        QueryContext query = state == null ? null : state.query();
        if (query == null || query instanceof StaticEvaluation.EmptyQueryContext) {
            return;
        }
        Account account = account(query);
        account.depth--;
        if (account.depth >= 0 && account.depth < account.marks.length) {
            long kept = account.bytes - account.marks[account.depth];
            if (kept > 0 && kept < SMALL) {
                account.bytes -= kept;
                query.transactionalContext().memoryTracker().releaseHeap(kept);
            }
        }
    }

    private static Account account(QueryContext query) {
        Account account = ACCOUNT.get();
        if (account.query.get() != query) {
            account.query = new java.lang.ref.WeakReference<>(query);
            account.bytes = 0;
            account.depth = 0;
        }
        return account;
    }

    /**
     * Charges the query's account; refuses the statement once its expressions have built more than
     * {@link #MAX_BUILT} bytes. The bytes are also charged to the transaction's own memory tracker, so that
     * Neo4j's global pool for transactions ({@code dbms.memory.transaction.total.max}) counts them as well.
     */
    private static void charge(long bytes, QueryState state) {
        QueryContext query = state == null ? null : state.query();
        if (query == null || query instanceof StaticEvaluation.EmptyQueryContext) {
            return;
        }
        Account account = account(query);
        account.bytes += bytes;
        if (account.bytes > MAX_BUILT) {
            long built = account.bytes;
            account.bytes = 0; // the statement ends here
            account.depth = 0;
            throw new InvalidArgumentException(org.neo4j.gqlstatus.GqlHelper.getGql22003_22N03(
                    "bytes built by expressions", "INTEGER", 0, MAX_BUILT, String.valueOf(built)), String.format(
                    "The expressions of this statement built more than %d MiB of strings and lists (%d MiB); "
                    + "the limit keeps one statement from filling the server's memory", MAX_BUILT >> 20,
                    built >> 20));
        }
        query.transactionalContext().memoryTracker().allocateHeap(bytes);
    }

    /** What the statement a worker thread evaluates has built so far (a statement runs on one thread at a time). */
    private static final class Account {
        java.lang.ref.WeakReference<QueryContext> query = new java.lang.ref.WeakReference<>(null);
        long bytes;
        /** What had been charged when each list comprehension being evaluated (nested ones) started. */
        final long[] marks = new long[64];
        int depth;
    }

    private static final ThreadLocal<Account> ACCOUNT = ThreadLocal.withInitial(Account::new);

    /** Adds the check to the start of every method of the guarded packages that takes a QueryState. */
    private static final class Transformer implements ClassFileTransformer {
        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
                byte[] classfile) {
            if (className == null || !guarded(className)) {
                return null;
            }
            ClassReader reader = new ClassReader(classfile);
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            reader.accept(new CheckingClass(writer, className), 0);
            return writer.toByteArray();
        }

        private static boolean guarded(String className) {
            for (String prefix : GUARDED_PACKAGES) {
                if (className.startsWith(prefix)) {
                    return true;
                }
            }
            return false;
        }
    }

    private static final class CheckingClass extends ClassVisitor {
        private final boolean builder;
        private final boolean keeper;

        CheckingClass(ClassVisitor next, String className) {
            super(Opcodes.ASM9, next);
            String simple = className.startsWith(EXPRESSIONS) ? className.substring(EXPRESSIONS.length()) : "";
            builder = BUILDERS.contains(simple);
            keeper = KEEPERS.contains(simple);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            MethodVisitor method = super.visitMethod(access, name, descriptor, signature, exceptions);
            int slot = stateSlot(access, descriptor);
            if (slot < 0 || (access & Opcodes.ACC_ABSTRACT) != 0) {
                return method;
            }
            boolean evaluation = (access & (Opcodes.ACC_BRIDGE | Opcodes.ACC_SYNTHETIC | Opcodes.ACC_PRIVATE
                    | Opcodes.ACC_STATIC)) == 0 && (name.equals("apply") || name.equals("compute"))
                    && Type.getReturnType(descriptor).getSort() == Type.OBJECT;
            return new CheckingMethod(method, slot, builder && evaluation, keeper && evaluation);
        }

        /** The local variable slot of the method's first QueryState parameter, or -1. */
        private static int stateSlot(int access, String descriptor) {
            int slot = (access & Opcodes.ACC_STATIC) != 0 ? 0 : 1;
            for (Type parameter : Type.getArgumentTypes(descriptor)) {
                if (parameter.getDescriptor().equals(QUERY_STATE)) {
                    return slot;
                }
                slot += parameter.getSize();
            }
            return -1;
        }
    }

    private static final String CYPHER_FUNCTIONS = "org/neo4j/cypher/operations/CypherFunctions";
    private static final java.util.Set<String> PRECHARGED = java.util.Set.of("replace", "split", "normalize");

    /** Calls {@link #check} first, and {@link #bound} on every list a {@code makeTraversable} call returns. */
    private static final class CheckingMethod extends MethodVisitor {
        private final int stateSlot;
        private final boolean chargeResult;
        private final boolean chargeKept;

        CheckingMethod(MethodVisitor next, int stateSlot, boolean chargeResult, boolean chargeKept) {
            super(Opcodes.ASM9, next);
            this.stateSlot = stateSlot;
            this.chargeResult = chargeResult;
            this.chargeKept = chargeKept;
        }

        /** CypherFunctions.replace/split/normalize become this class's methods of that name, given the state. */
        private boolean redirect(int opcode, String owner, String name, String descriptor) {
            if (opcode != Opcodes.INVOKESTATIC || !owner.equals(CYPHER_FUNCTIONS) || !PRECHARGED.contains(name)
                    || !descriptor.endsWith(")" + ANY_VALUE)) {
                return false;
            }
            super.visitVarInsn(Opcodes.ALOAD, stateSlot);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, GUARD, name,
                    descriptor.replace(")", QUERY_STATE + ")"), false);
            return true;
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.ARETURN && chargeKept) {
                super.visitVarInsn(Opcodes.ALOAD, stateSlot);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, GUARD, "leave", "(" + QUERY_STATE + ")V", false);
            }
            if (opcode == Opcodes.ARETURN && chargeResult) {
                super.visitInsn(Opcodes.DUP);
                super.visitVarInsn(Opcodes.ALOAD, stateSlot);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, GUARD, "built",
                        "(Ljava/lang/Object;" + QUERY_STATE + ")V", false);
            }
            super.visitInsn(opcode);
        }

        @Override
        public void visitCode() {
            super.visitCode();
            super.visitVarInsn(Opcodes.ALOAD, stateSlot);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, GUARD, "check",
                    "(" + QUERY_STATE + ")V", false);
            if (chargeKept) {
                super.visitVarInsn(Opcodes.ALOAD, stateSlot);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, GUARD, "enter", "(" + QUERY_STATE + ")V", false);
            }
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            if (redirect(opcode, owner, name, descriptor)) {
                return;
            }
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
            if (name.startsWith("makeTraversable") && descriptor.endsWith(")" + LIST_VALUE)) {
                super.visitInsn(Opcodes.DUP);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, GUARD, "bound", "(" + LIST_VALUE + ")V", false);
            }
            if (chargeKept && name.equals("apply") && owner.equals(EXPRESSIONS + "Expression")
                    && descriptor.endsWith(QUERY_STATE + ")" + ANY_VALUE)) {
                super.visitInsn(Opcodes.DUP);
                super.visitVarInsn(Opcodes.ALOAD, stateSlot);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, GUARD, "kept", "(" + ANY_VALUE + QUERY_STATE + ")V", false);
            }
        }
    }
}
