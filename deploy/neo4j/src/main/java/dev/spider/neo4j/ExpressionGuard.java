package dev.spider.neo4j;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

import org.neo4j.cypher.internal.evaluator.StaticEvaluation;
import org.neo4j.cypher.internal.runtime.QueryContext;
import org.neo4j.cypher.internal.runtime.interpreted.pipes.QueryState;
import org.neo4j.exceptions.InvalidArgumentException;
import org.neo4j.values.virtual.ListValue;
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
 */
public final class ExpressionGuard {
    // A string, not QueryState.class: premain must load no Neo4j class before the transformer is in place.
    private static final String QUERY_STATE = "Lorg/neo4j/cypher/internal/runtime/interpreted/pipes/QueryState;";
    private static final String LIST_VALUE = "Lorg/neo4j/values/virtual/ListValue;";
    private static final String GUARD = "dev/spider/neo4j/ExpressionGuard";
    private static final String[] GUARDED_PACKAGES = {
        "org/neo4j/cypher/internal/runtime/interpreted/commands/",
        "org/neo4j/cypher/internal/runtime/slotted/expressions/",
    };
    /** The most elements one list an expression walks may hold: 10 million take about 0.3 GB as a new list. */
    static final long MAX_LIST = 10_000_000;
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
            reader.accept(new CheckingClass(writer), 0);
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
        CheckingClass(ClassVisitor next) {
            super(Opcodes.ASM9, next);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            MethodVisitor method = super.visitMethod(access, name, descriptor, signature, exceptions);
            int slot = stateSlot(access, descriptor);
            return slot < 0 || (access & Opcodes.ACC_ABSTRACT) != 0 ? method : new CheckingMethod(method, slot);
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

    /** Calls {@link #check} first, and {@link #bound} on every list a {@code makeTraversable} call returns. */
    private static final class CheckingMethod extends MethodVisitor {
        private final int stateSlot;

        CheckingMethod(MethodVisitor next, int stateSlot) {
            super(Opcodes.ASM9, next);
            this.stateSlot = stateSlot;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            super.visitVarInsn(Opcodes.ALOAD, stateSlot);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, GUARD, "check",
                    "(" + QUERY_STATE + ")V", false);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
            if (name.startsWith("makeTraversable") && descriptor.endsWith(")" + LIST_VALUE)) {
                super.visitInsn(Opcodes.DUP);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, GUARD, "bound", "(" + LIST_VALUE + ")V", false);
            }
        }
    }
}
