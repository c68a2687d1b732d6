"""The first schema: accounts, courses, their exercises, enrolments, submissions and settings.

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_users_username", "users", ["username"], unique=True)
    op.create_table(
        "courses",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("teacher_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("join_code", sa.String(32), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_courses_teacher_id", "courses", ["teacher_id"])
    op.create_index("ix_courses_join_code", "courses", ["join_code"], unique=True)
    op.create_table(
        "course_exercises",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course_id", sa.Integer(), sa.ForeignKey("courses.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("bundled", sa.String(100), nullable=True),
        sa.Column("kind", sa.String(32), nullable=True),
        sa.Column("difficulty", sa.Integer(), nullable=True),
        sa.Column("logic", sa.String(32), nullable=True),
        sa.Column("deadline", sa.DateTime(), nullable=True),
        sa.Column("max_attempts", sa.Integer(), nullable=True),
        sa.Column("solutions_published", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_course_exercises_course_id", "course_exercises", ["course_id"])
    op.create_table(
        "enrolments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course_id", sa.Integer(), sa.ForeignKey("courses.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.UniqueConstraint("course_id", "user_id"),
    )
    op.create_index("ix_enrolments_course_id", "enrolments", ["course_id"])
    op.create_index("ix_enrolments_user_id", "enrolments", ["user_id"])
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("exercise_id", sa.Integer(), sa.ForeignKey("course_exercises.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("verdict", sa.String(64), nullable=True),
        sa.Column("accepted", sa.Boolean(), nullable=False),
        sa.Column("feedback", sa.Text(), nullable=True),
        sa.Column("stepper", sa.Text(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("graded", sa.DateTime(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.UniqueConstraint("exercise_id", "user_id", "attempt"),
    )
    op.create_index("ix_submissions_exercise_id", "submissions", ["exercise_id"])
    op.create_index("ix_submissions_user_id", "submissions", ["user_id"])
    op.create_index("ix_submissions_status", "submissions", ["status"])
    op.create_table(
        "settings",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    for table in ("settings", "submissions", "enrolments", "course_exercises", "courses", "users"):
        op.drop_table(table)
