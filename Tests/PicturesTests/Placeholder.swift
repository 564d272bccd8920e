// Keeps the PicturesTests target buildable until its tests land from the medialib branch; removed then.
