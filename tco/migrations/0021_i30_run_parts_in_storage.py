# Runs keep their result as Parquet parts in storage, one per chunk, instead of chunk bytes in
# the database assembled into one file. A run finished before keeps its assembled file as its
# one part, so its downloads work as before.

from django.db import migrations, models


def assembled_file_as_one_part(apps, schema_editor):
    from django.core.files.storage import default_storage

    SweepRun = apps.get_model("tco", "SweepRun")
    SweepChunk = apps.get_model("tco", "SweepChunk")
    for run in SweepRun.objects.filter(status="done").exclude(result_file=""):
        try:
            size = default_storage.size(run.result_file.name)
        except OSError:
            size = 0
        SweepChunk.objects.filter(run=run).delete()
        SweepChunk.objects.create(run=run, index=0, start=0, stop=run.points_total, status="done",
                                  attempts=1, result_name=run.result_file.name, result_bytes=size)
        SweepRun.objects.filter(pk=run.pk).update(result_bytes=size)


class Migration(migrations.Migration):

    dependencies = [
        ('tco', '0020_pinned_source_keys'),
    ]

    operations = [
        migrations.AddField(
            model_name='sweepchunk',
            name='result_bytes',
            field=models.BigIntegerField(default=0, help_text='Size of that part [bytes].'),
        ),
        migrations.AddField(
            model_name='sweepchunk',
            name='result_name',
            field=models.CharField(blank=True, help_text="Storage name of the slice's Parquet part; set once, when done.", max_length=255),
        ),
        migrations.AddField(
            model_name='sweeprun',
            name='result_bytes',
            field=models.BigIntegerField(default=0, help_text="Stored size of the result's parts, counted in the team's quota [bytes]."),
        ),
        migrations.RunPython(assembled_file_as_one_part, migrations.RunPython.noop, elidable=True),
        migrations.RemoveField(
            model_name='sweepchunk',
            name='result',
        ),
        migrations.RemoveField(
            model_name='sweeprun',
            name='result_file',
        ),
    ]
