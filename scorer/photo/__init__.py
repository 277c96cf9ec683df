"""The one image loader: type by content, size limits, EXIF orientation, HEIC."""
